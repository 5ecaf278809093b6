// Shapes shared by the references of the ATen reductions over a list of
// dimensions (aten/amin, aten/argmax, ...): which dimensions are reduced, the
// shape out must have, and a walk over the elements of each output's slice
// (self's storage offset and the row-major position inside the slice), fast
// enough for the performance cases (parallel over outputs).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/tensor.h"

namespace kgb::reduction {

struct Reduction {
  std::vector<bool> reduced;       // per dimension of self
  std::vector<int64_t> out_shape;  // with keepdim applied
  std::vector<int64_t> kept_sizes, kept_strides;        // self's kept dims, outer first
  std::vector<int64_t> reduced_sizes, reduced_strides;  // self's reduced dims, outer first
  int64_t outputs = 1;  // elements of out (row-major over the kept dims)
  int64_t length = 1;   // elements reduced into each output

  // Storage offset in self of the first element of output o's slice.
  int64_t base(int64_t o) const {
    int64_t off = 0;
    for (size_t d = kept_sizes.size(); d-- > 0;) {
      off += (o % kept_sizes[d]) * kept_strides[d];
      o /= kept_sizes[d];
    }
    return off;
  }
  // fn(offset, k) for the slice of output o, k the row-major position in it.
  template <typename Fn>
  void for_slice(int64_t o, Fn&& fn) const {
    const int64_t b = base(o);
    const size_t nr = reduced_sizes.size();
    if (nr == 0) {
      fn(b, int64_t{0});
      return;
    }
    const int64_t inner = reduced_sizes[nr - 1], inner_stride = reduced_strides[nr - 1];
    const int64_t rows = inner == 0 ? 0 : length / inner;
    for (int64_t row = 0; row < rows; ++row) {
      int64_t off = b, q = row;
      for (size_t d = nr - 1; d-- > 0;) {
        off += (q % reduced_sizes[d]) * reduced_strides[d];
        q /= reduced_sizes[d];
      }
      for (int64_t j = 0; j < inner; ++j) fn(off + j * inner_stride, row * inner + j);
    }
  }
};

// dims: ATen's dim list (empty = every dimension); a rank-0 self accepts 0 and -1.
inline Reduction plan(const std::string& task, const HostTensor& self, const std::vector<int64_t>& dims, bool keepdim) {
  const int rank = self.rank();
  Reduction r;
  r.reduced.assign(static_cast<size_t>(rank), dims.empty());
  const int64_t nominal = rank == 0 ? 1 : rank;
  for (int64_t d : dims) {
    if (d < -nominal || d >= nominal) throw std::runtime_error(task + ": dim out of range");
    if (rank == 0) continue;
    if (d < 0) d += rank;
    if (r.reduced[static_cast<size_t>(d)]) throw std::runtime_error(task + ": a dim appears twice");
    r.reduced[static_cast<size_t>(d)] = true;
  }
  for (int d = 0; d < rank; ++d) {
    const int64_t size = self.sizes()[d], stride = self.strides()[d];
    if (r.reduced[static_cast<size_t>(d)]) {
      r.length *= size;
      r.reduced_sizes.push_back(size);
      r.reduced_strides.push_back(stride);
      if (keepdim) r.out_shape.push_back(1);
    } else {
      r.outputs *= size;
      r.kept_sizes.push_back(size);
      r.kept_strides.push_back(stride);
      r.out_shape.push_back(size);
    }
  }
  return r;
}

}  // namespace kgb::reduction
