// Reference for aten/bmm: out[b] = self[b] @ mat2[b] for every batch b,
// accumulated in double from the logical values and rounded once into the
// output dtype.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../matmul_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void bmm_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& mat2 = args.tensor("mat2");
  kgb::HostTensor& out = args.tensor("out");
  if (self.rank() != 3 || mat2.rank() != 3 || out.rank() != 3) throw std::runtime_error("aten/bmm: tensors must be 3-D");
  const int64_t batch = self.size(0), m = self.size(1), k = self.size(2), n = mat2.size(2);
  if (mat2.size(0) != batch || mat2.size(1) != k || out.size(0) != batch || out.size(1) != m || out.size(2) != n)
    throw std::runtime_error("aten/bmm: shapes do not match [B,M,K] @ [B,K,N] -> [B,M,N]");

  const std::vector<double> a = kgb::to_doubles(self), b = kgb::to_doubles(mat2);
  std::vector<kgb::matmul_reference::Product> products;
  for (int64_t q = 0; q < batch; ++q) products.push_back({q * m * k, q * k * n, q * m * n});
  std::vector<double> c(static_cast<size_t>(batch * m * n), 0.0);
  kgb::matmul_reference::gemm_batch(m, n, k, a, b, products, {}, c);
  kgb::from_doubles(out, c);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/bmm", bmm_reference);
