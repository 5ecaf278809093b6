// Reference for aten/linear: out = input @ weight^T + bias over the last dim
// of input, accumulated in double from the logical values (the bias added to
// the sum) and rounded once into the output dtype.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../matmul_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void linear_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& input = args.tensor("input");
  const kgb::HostTensor& weight = args.tensor("weight");
  const kgb::HostTensor* bias = args.optional_tensor("bias");
  kgb::HostTensor& out = args.tensor("out");
  if (input.rank() < 1 || weight.rank() != 2 || out.rank() != input.rank())
    throw std::runtime_error("aten/linear: input [..., K], weight [N, K], out [..., N]");
  const int64_t k = input.size(-1), n = weight.size(0);
  if (weight.size(1) != k || out.size(-1) != n) throw std::runtime_error("aten/linear: K or N does not match");
  for (int d = 0; d + 1 < input.rank(); ++d)
    if (out.size(d) != input.size(d)) throw std::runtime_error("aten/linear: leading dims of out differ from input's");
  if (bias && (bias->rank() != 1 || bias->size(0) != n)) throw std::runtime_error("aten/linear: bias must be [N]");
  int64_t m = 1;  // rows: the leading dims of input, flattened
  for (int d = 0; d + 1 < input.rank(); ++d) m *= input.size(d);

  // weight^T as a row-major K x N matrix.
  const std::vector<double> a = kgb::to_doubles(input), w = kgb::to_doubles(weight);
  std::vector<double> wt(static_cast<size_t>(k * n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = 0; p < k; ++p) wt[static_cast<size_t>(p * n + j)] = w[static_cast<size_t>(j * k + p)];
  const std::vector<double> b = bias ? kgb::to_doubles(*bias) : std::vector<double>{};
  std::vector<double> c(static_cast<size_t>(out.numel()), 0.0);
  kgb::matmul_reference::gemm_batch(m, n, k, a, wt, {{0, 0, 0}}, b, c);
  kgb::from_doubles(out, c);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/linear", linear_reference);
