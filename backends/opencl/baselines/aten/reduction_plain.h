// Shared by the plain OpenCL baselines of the ATen reductions (amin, argmax,
// mean, sum): which dimensions of self are reduced, and the two walks a
// work-item needs as plain_common.h's Dims: `kept` over the output elements
// (strides: out, self) and `red` over one output's slice (strides: self), in
// logical row-major order. A complex tensor is walked as reals: strides
// doubled and one more kept dimension (re, im).
#pragma once

#include "../plain_common.h"

namespace kgb::opencl::plain::reduction {

struct Walks {
  Dims kept, red;
};

// dims: the reduced dimensions (nullptr or an empty list: every dimension).
inline Walks walks(const kgb_tensor* self, const kgb_tensor* out, const int64_t* dims, int64_t count, bool keepdim,
                   bool complex = false) {
  bool reduced[8] = {false};
  for (int64_t i = 0; i < count; ++i)
    if (self->rank > 0) reduced[normalise_dim(dims[i], self->rank)] = true;
  if (count == 0)
    for (int d = 0; d < self->rank; ++d) reduced[d] = true;
  const cl_long scale = complex ? 2 : 1;
  Walks w;
  int od = 0;
  for (int d = 0; d < self->rank; ++d) {
    if (reduced[d]) {
      w.red.add(self->sizes[d], self->strides[d] * scale);
      od += keepdim ? 1 : 0;
      continue;
    }
    w.kept.add(self->sizes[d], out->strides[od++] * scale, self->strides[d] * scale);
  }
  if (complex) w.kept.add(2, 1, 1);
  return w;
}

}  // namespace kgb::opencl::plain::reduction
