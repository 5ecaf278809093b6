// Reference for aten/embedding (forward): out[p, j] = weight[indices[p], j]
// for every logical position p of indices (row-major) and feature j, copied
// bit for bit. padding_idx only matters for the gradient and is ignored.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("aten/embedding: " + what); }

void embedding_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& weight = args.tensor("weight");
  const kgb::HostTensor& indices = args.tensor("indices");
  kgb::HostTensor& out = args.tensor("out");
  if (weight.rank() != 2) fail("weight must be 2-D");
  if (out.dtype() != weight.dtype()) fail("out has another dtype");
  std::vector<int64_t> expected = indices.sizes();
  expected.push_back(weight.sizes()[1]);
  if (out.sizes() != expected) fail("out must have the shape of indices followed by D");
  const int64_t rows = weight.sizes()[0], width = weight.sizes()[1];
  const std::vector<int64_t> ids = kgb::to_ints(indices);  // logical order
  for (int64_t v : ids)
    if (v < 0 || v >= rows) fail("index " + std::to_string(v) + " out of range [0, " + std::to_string(rows) + ")");
  if (ids.empty() || width == 0) return;
  const int64_t elem = kgb::dtype_size(weight.dtype());
  const int64_t ws0 = weight.strides()[0], ws1 = weight.strides()[1], os_last = out.strides().back();
  kgb::parallel_chunks(static_cast<int64_t>(ids.size()), [&](int64_t first, int64_t last) {
    std::vector<int64_t> pos = out.unravel(first * width);  // (p..., 0)
    for (int64_t p = first; p < last; ++p) {
      const int64_t row_at = out.offset_of(pos);
      const int64_t from = ids[static_cast<size_t>(p)] * ws0;
      for (int64_t j = 0; j < width; ++j)
        std::memcpy(out.data() + (row_at + j * os_last) * elem, weight.data() + (from + j * ws1) * elem, static_cast<size_t>(elem));
      for (int d = out.rank() - 2; d >= 0; --d) {  // next position of indices
        if (++pos[static_cast<size_t>(d)] < out.sizes()[d]) break;
        pos[static_cast<size_t>(d)] = 0;
      }
    }
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/embedding", embedding_reference);
