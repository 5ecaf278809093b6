// Reference for aten/mm: out = self @ mat2, accumulated in double from the
// logical values and rounded once into the output dtype.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void mm_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& mat2 = args.tensor("mat2");
  kgb::HostTensor& out = args.tensor("out");
  if (self.rank() != 2 || mat2.rank() != 2 || out.rank() != 2) throw std::runtime_error("aten/mm: tensors must be 2-D");
  const int64_t m = self.size(0), k = self.size(1), n = mat2.size(1);
  if (mat2.size(0) != k || out.size(0) != m || out.size(1) != n)
    throw std::runtime_error("aten/mm: shapes do not match [M,K] @ [K,N] -> [M,N]");

  // to_doubles reads the logical values row-major, whatever the strides.
  const std::vector<double> a = kgb::to_doubles(self), b = kgb::to_doubles(mat2);
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const double aip = a[static_cast<size_t>(i * k + p)];
      for (int64_t j = 0; j < n; ++j) c[static_cast<size_t>(i * n + j)] += aip * b[static_cast<size_t>(p * n + j)];
    }
  kgb::from_doubles(out, c);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/mm", mm_reference);
