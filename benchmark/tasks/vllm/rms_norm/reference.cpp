// Reference for vllm/rms_norm: out[t, j] = x[j] / sqrt(mean(x^2) + epsilon) * w[j]
// per token t (every index of the leading dimensions), computed in double from
// the logical values and rounded once into the output dtype.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void rms_norm_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& input = args.tensor("input");
  const kgb::HostTensor& weight = args.tensor("weight");
  kgb::HostTensor& out = args.tensor("out");
  const double epsilon = args.scalar("epsilon");
  if (input.rank() < 1 || weight.rank() != 1 || out.sizes() != input.sizes())
    throw std::runtime_error("vllm/rms_norm: expected input [..., H], weight [H], out shaped like input");
  const int64_t hidden = input.size(-1);
  if (hidden < 1 || weight.size(0) != hidden) throw std::runtime_error("vllm/rms_norm: hidden sizes differ or are 0");

  // Row-major logical order: token t owns elements [t*hidden, (t+1)*hidden).
  const std::vector<double> x = kgb::to_doubles(input), w = kgb::to_doubles(weight);
  std::vector<double> r(x.size());
  const int64_t tokens = input.numel() / hidden;
  for (int64_t t = 0; t < tokens; ++t) {
    const double* row = x.data() + t * hidden;
    double sumsq = 0.0;
    for (int64_t j = 0; j < hidden; ++j) sumsq += row[j] * row[j];
    const double inv_rms = 1.0 / std::sqrt(sumsq / static_cast<double>(hidden) + epsilon);
    for (int64_t j = 0; j < hidden; ++j) r[static_cast<size_t>(t * hidden + j)] = row[j] * inv_rms * w[static_cast<size_t>(j)];
  }
  kgb::from_doubles(out, r);
}

}  // namespace

KGB_REGISTER_REFERENCE("vllm/rms_norm", rms_norm_reference);
