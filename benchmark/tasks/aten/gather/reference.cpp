// Reference for aten/gather: out[p] = self[p with coordinate dim replaced by
// index[p]] for every logical position p of index (= of out), copied bit for
// bit. Also the index generator: uniform in [0, size(self, dim)), which a
// spec expression cannot state for a 0-dim self (its single index is 0).
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("aten/gather: " + what); }

// The dimension `dim` of a tensor of rank `rank` (0-dim tensors act as 1-D).
int normalise_dim(int64_t dim, int rank) {
  const int r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) fail("dim " + std::to_string(dim) + " out of range");
  return static_cast<int>(dim < 0 ? dim + r : dim);
}

void gather_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& index = args.tensor("index");
  kgb::HostTensor& out = args.tensor("out");
  const int rank = self.rank();
  const int dim = normalise_dim(args.int_scalar("dim"), rank);
  if (index.dtype() != kgb::DType::I64) fail("index must be i64");
  if (out.dtype() != self.dtype()) fail("out has another dtype");
  if (index.rank() != rank || out.sizes() != index.sizes()) fail("index and out must have self's rank and one shape");
  for (int d = 0; d < rank; ++d)
    if (d != dim && index.sizes()[d] > self.sizes()[d]) fail("index is larger than self outside dim");
  const int64_t n = index.numel();
  if (n == 0) return;
  const int64_t len = rank == 0 ? 1 : self.sizes()[dim];
  const int64_t dim_stride = rank == 0 ? 0 : self.strides()[dim];
  const size_t elem = static_cast<size_t>(kgb::dtype_size(self.dtype()));

  kgb::parallel_chunks(n, [&](int64_t first, int64_t last) {
    std::vector<int64_t> pos = index.unravel(first);
    for (int64_t linear = first; linear < last; ++linear) {
      const int64_t v = index.get_int_at(index.offset_of(pos));
      if (v < 0 || v >= len) fail("index value " + std::to_string(v) + " out of range [0, " + std::to_string(len) + ")");
      int64_t from = v * dim_stride;
      for (int d = 0; d < rank; ++d)
        if (d != dim) from += pos[static_cast<size_t>(d)] * self.strides()[d];
      std::memcpy(out.data() + out.offset_of(pos) * static_cast<int64_t>(elem), self.data() + from * static_cast<int64_t>(elem), elem);
      for (int d = rank - 1; d >= 0; --d) {  // row-major odometer
        if (++pos[static_cast<size_t>(d)] < index.sizes()[d]) break;
        pos[static_cast<size_t>(d)] = 0;
      }
    }
  });
}

// index: uniform in [0, size(self, dim)), any layout (logical order, one seeded stream).
void gather_index(kgb::GeneratorArgs& g) {
  const auto self = g.filled.find("self");
  const auto dim = g.scalars.find("dim");
  if (self == g.filled.end() || dim == g.scalars.end()) fail("the index generator needs self and dim");
  const kgb::HostTensor& s = *self->second;
  const int64_t len = s.rank() == 0 ? 1 : s.size(normalise_dim(dim->second.i, s.rank()));
  const int64_t n = g.tensor.numel();
  if (n > 0 && len <= 0) fail("no valid index for an empty dim");
  kgb::OffsetWalker w(g.tensor, 0);
  for (int64_t i = 0; i < n; ++i, w.next())
    g.tensor.set_int_at(w.offset(), static_cast<int64_t>(g.rng() % static_cast<uint64_t>(len)));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/gather", gather_reference);
KGB_REGISTER_GENERATOR("aten/gather/index", gather_index);
