// References for vllm/scaled_fp8_quant: the static entry and the overloads
// `dynamic` and `dynamic_per_token`, and the input generator they share.
//
// Rounding points, as vLLM's kernels have them: the dynamic scales are stored
// as f32 (absmax / 448 in float, per-token floored at 1 / (448 * 512)) and the
// quantisation uses the stored scale; the quotient x / scale itself is exact
// (double) and rounded once into e4m3fn with saturation at +-448. vLLM's
// kernels multiply by a float reciprocal (static, dynamic) or divide in float
// (per token); near a rounding tie that can land one step away, which the
// task's one-step tolerance on the result allows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

constexpr double kFp8Max = 448.0;

void check_shapes(const kgb::HostTensor& input, const kgb::HostTensor& result, const char* entry) {
  if (input.rank() != 2 || result.sizes() != input.sizes())
    throw std::runtime_error(std::string(entry) + ": expected input [num_tokens, hidden_size] and result of the same shape");
}

// result[t, j] = e4m3fn(input[t, j] / row_scale[t]), saturating (the
// harness's fp8 storage rounds to nearest even and saturates).
void quantize(const kgb::HostTensor& input, kgb::HostTensor& result, const std::vector<double>& row_scale) {
  const int64_t hidden = input.sizes()[1];
  kgb::parallel_chunks(input.numel(), [&](int64_t first, int64_t last) {
    kgb::OffsetWalker in(input, first), out(result, first);
    for (int64_t i = first; i < last; ++i, in.next(), out.next())
      result.set_at(out.offset(), input.get_at(in.offset()) / row_scale[static_cast<size_t>(i / hidden)]);
  });
}

// max |input[t, :]| per row, over element chunks (rows may be long or short).
std::vector<double> row_absmax(const kgb::HostTensor& input) {
  const int64_t tokens = input.sizes()[0], hidden = input.sizes()[1], n = input.numel();
  std::vector<double> result(static_cast<size_t>(tokens), 0.0);
  if (n == 0) return result;
  const int64_t chunks = (n + kgb::kParallelChunk - 1) / kgb::kParallelChunk;
  std::vector<std::vector<double>> partial(static_cast<size_t>(chunks));
  kgb::parallel_chunks(n, [&](int64_t first, int64_t last) {
    std::vector<double>& m = partial[static_cast<size_t>(first / kgb::kParallelChunk)];
    m.assign(static_cast<size_t>((last - 1) / hidden - first / hidden + 1), 0.0);
    kgb::OffsetWalker in(input, first);
    for (int64_t i = first; i < last; ++i, in.next()) {
      double& slot = m[static_cast<size_t>(i / hidden - first / hidden)];
      slot = std::max(slot, std::fabs(input.get_at(in.offset())));
    }
  });
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t first_row = c * kgb::kParallelChunk / hidden;
    const std::vector<double>& m = partial[static_cast<size_t>(c)];
    for (size_t k = 0; k < m.size(); ++k) result[first_row + static_cast<int64_t>(k)] = std::max(result[first_row + static_cast<int64_t>(k)], m[k]);
  }
  return result;
}

double to_f32(double v) { return static_cast<double>(static_cast<float>(v)); }

void static_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& input = args.tensor("input");
  kgb::HostTensor& result = args.tensor("result");
  check_shapes(input, result, "vllm/scaled_fp8_quant");
  const double scale = args.tensor("scale").get(0);
  if (!(scale > 0)) throw std::runtime_error("vllm/scaled_fp8_quant: the static scale must be positive");
  quantize(input, result, std::vector<double>(static_cast<size_t>(input.sizes()[0]), scale));
}

void dynamic_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& input = args.tensor("input");
  kgb::HostTensor& result = args.tensor("result");
  check_shapes(input, result, "vllm/scaled_fp8_quant.dynamic");
  const int64_t tokens = input.sizes()[0];
  const std::vector<double> row_max = row_absmax(input);
  const double absmax = tokens ? *std::max_element(row_max.begin(), row_max.end()) : 0.0;
  const double scale = to_f32(absmax / kFp8Max);
  args.tensor("scale").set(0, scale);
  if (input.numel() == 0) return;
  if (scale == 0) throw std::runtime_error("vllm/scaled_fp8_quant.dynamic: an all-zero input has no scale (the spec promises none)");
  quantize(input, result, std::vector<double>(static_cast<size_t>(tokens), scale));
}

void dynamic_per_token_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& input = args.tensor("input");
  kgb::HostTensor& result = args.tensor("result");
  kgb::HostTensor& scales = args.tensor("scale");
  check_shapes(input, result, "vllm/scaled_fp8_quant.dynamic_per_token");
  const int64_t tokens = input.sizes()[0];
  if (scales.numel() != tokens) throw std::runtime_error("vllm/scaled_fp8_quant.dynamic_per_token: scale must be [num_tokens, 1]");
  const kgb::HostTensor* ub = args.optional_tensor("scale_ub");
  const double bound = ub ? ub->get(0) : INFINITY;
  const double floor_scale = to_f32(1.0 / (kFp8Max * 512.0));
  std::vector<double> row_scale = row_absmax(input);
  for (int64_t t = 0; t < tokens; ++t) {
    double& s = row_scale[static_cast<size_t>(t)];
    s = std::max(to_f32(std::min(s, bound) / kFp8Max), floor_scale);
    scales.set(t, s);
  }
  quantize(input, result, row_scale);
}

// Activations whose rows differ by orders of magnitude: row t is
// N(0, 1) * 10^u with u uniform in [-2, 2], and every row t = 3 (mod 5) is
// all zero. Static scales then both saturate large rows and reach fp8
// subnormals in small ones; per-token scales span four decades and meet the
// floor scale on the zero rows; a tensor never is all zero (row 0 is not).
void input_generator(kgb::GeneratorArgs& g) {
  kgb::HostTensor& t = g.tensor;
  if (t.rank() != 2) throw std::runtime_error("input must have rank 2");
  const int64_t tokens = t.sizes()[0], hidden = t.sizes()[1];
  for (int64_t r = 0; r < tokens; ++r) {
    const double magnitude = std::pow(10.0, 4.0 * kgb::uniform_open01(g.rng) - 2.0);
    for (int64_t j = 0; j < hidden; ++j) {
      const double v = r % 5 == 3 ? 0.0 : magnitude * kgb::standard_normal(g.rng);
      t.set(r * hidden + j, v);
    }
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("vllm/scaled_fp8_quant", static_reference);
KGB_REGISTER_REFERENCE("vllm/scaled_fp8_quant.dynamic", dynamic_reference);
KGB_REGISTER_REFERENCE("vllm/scaled_fp8_quant.dynamic_per_token", dynamic_per_token_reference);
KGB_REGISTER_GENERATOR("vllm/scaled_fp8_quant/input", input_generator);
