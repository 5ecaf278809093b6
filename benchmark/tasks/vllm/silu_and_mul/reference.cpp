// Reference for vllm/silu_and_mul: out[t, j] = silu(x) * y with x = input[t, j],
// y = input[t, d + j], silu(x) = x / (1 + exp(-x)), computed in double from the
// logical values and rounded once into the output dtype.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void silu_and_mul_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& input = args.tensor("input");
  kgb::HostTensor& out = args.tensor("out");
  if (input.rank() < 1 || out.rank() != input.rank()) throw std::runtime_error("vllm/silu_and_mul: rank mismatch");
  for (int d = 0; d + 1 < input.rank(); ++d)
    if (input.size(d) != out.size(d)) throw std::runtime_error("vllm/silu_and_mul: leading dimensions differ");
  const int64_t d = out.size(-1);
  if (input.size(-1) != 2 * d) throw std::runtime_error("vllm/silu_and_mul: input's last dimension is not 2 * d");

  const std::vector<double> in = kgb::to_doubles(input);
  const int64_t tokens = d > 0 ? out.numel() / d : 0;
  std::vector<double> r(static_cast<size_t>(out.numel()));
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t j = 0; j < d; ++j) {
      const double x = in[static_cast<size_t>(t * 2 * d + j)];
      const double y = in[static_cast<size_t>(t * 2 * d + d + j)];
      r[static_cast<size_t>(t * d + j)] = x / (1.0 + std::exp(-x)) * y;
    }
  kgb::from_doubles(out, r);
}

}  // namespace

KGB_REGISTER_REFERENCE("vllm/silu_and_mul", silu_and_mul_reference);
