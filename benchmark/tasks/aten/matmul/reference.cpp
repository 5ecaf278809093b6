// Reference for aten/matmul: ATen's rank rules (1-D . 1-D is a dot product of
// rank 0; a 1-D self gains a leading size-1 dim and a 1-D other a trailing
// one, both removed from the result; batch dims broadcast), every product
// accumulated in double from the logical values and rounded once into the
// output dtype.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../matmul_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void matmul_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& other = args.tensor("other");
  kgb::HostTensor& out = args.tensor("out");
  const int r1 = self.rank(), r2 = other.rank();
  if (r1 < 1 || r2 < 1) throw std::runtime_error("aten/matmul: both operands need at least one dim");
  const int64_t k = self.size(-1);
  const int64_t m = r1 >= 2 ? self.size(-2) : 1;
  const int64_t n = r2 >= 2 ? other.size(-1) : 1;
  if ((r2 >= 2 ? other.size(-2) : other.size(0)) != k) throw std::runtime_error("aten/matmul: inner sizes differ");

  // Batch dims: the leading dims of both (beyond the matrix ones), right-aligned and broadcast.
  const std::vector<int64_t> bs(self.sizes().begin(), self.sizes().end() - std::min(r1, 2));
  const std::vector<int64_t> bo(other.sizes().begin(), other.sizes().end() - std::min(r2, 2));
  const size_t br = std::max(bs.size(), bo.size());
  std::vector<int64_t> batch(br, 1);
  for (size_t d = 0; d < br; ++d) {
    const int64_t s = d + bs.size() >= br ? bs[d + bs.size() - br] : 1;
    const int64_t o = d + bo.size() >= br ? bo[d + bo.size() - br] : 1;
    if (s != o && s != 1 && o != 1) throw std::runtime_error("aten/matmul: batch dims do not broadcast");
    batch[d] = s == 1 ? o : s;
  }
  std::vector<int64_t> want = batch;
  if (r1 >= 2) want.push_back(m);
  if (r2 >= 2) want.push_back(n);
  if (out.sizes() != want) throw std::runtime_error("aten/matmul: out has the wrong shape");

  // Row-major position of a broadcast batch index inside one operand's batch dims.
  auto operand_batch = [&](const std::vector<int64_t>& dims, int64_t q) {
    int64_t pos = 0, stride = 1;
    for (size_t d = br; d-- > 0;) {
      const int64_t i = q % batch[d];
      q /= batch[d];
      if (d + dims.size() < br) continue;
      const int64_t size = dims[d + dims.size() - br];
      pos += (size == 1 ? 0 : i) * stride;
      stride *= size;
    }
    return pos;
  };
  int64_t batches = 1;
  for (int64_t s : batch) batches *= s;
  std::vector<kgb::matmul_reference::Product> products;
  for (int64_t q = 0; q < batches; ++q)
    products.push_back({operand_batch(bs, q) * m * k, operand_batch(bo, q) * k * n, q * m * n});
  const std::vector<double> a = kgb::to_doubles(self), b = kgb::to_doubles(other);
  std::vector<double> c(static_cast<size_t>(batches * m * n), 0.0);
  kgb::matmul_reference::gemm_batch(m, n, k, a, b, products, {}, c);
  kgb::from_doubles(out, c);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/matmul", matmul_reference);
