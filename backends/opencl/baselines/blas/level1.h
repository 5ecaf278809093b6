// Shared by the CLBlast level-1 baselines: 1-D views as CLBlast vector
// arguments. CLBlast takes buffer, offset and an unsigned increment, so it
// sees a vector walked forwards only. A negative BLAS increment walks the
// vector from its far end; two vectors whose increments are both negative are
// the same pairing of elements walked from their lowest addresses, which
// CLBlast can take. An increment of 0 or mixed signs cannot be expressed:
// the baselines then use their plain kernel (written here) instead.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kgb_opencl.h"

namespace kgb::opencl::level1 {

struct ClVector {
  cl_mem buffer = nullptr;
  size_t offset = 0;  // elements: the lowest address the vector touches
  size_t inc = 1;
};

// `reverse`: walk from the lowest address with |inc| (the view's increment is negative).
inline bool as_clblast(kgb_stream stream, const kgb_tensor* v, bool reverse, ClVector* out) {
  const int64_t n = v->sizes[0], inc = v->strides[0];
  if (inc == 0 || (inc < 0) != reverse) return false;
  cl_long offset = 0;
  if (kgb_cl_tensor_buffer(stream, v, &out->buffer, &offset) != CL_SUCCESS) return false;
  if (reverse && n > 0) offset += (n - 1) * inc;
  out->offset = static_cast<size_t>(offset);
  out->inc = static_cast<size_t>(inc < 0 ? -inc : inc);
  return true;
}

// One vector: a positive increment.
inline bool clblast_vector(kgb_stream stream, const kgb_tensor* x, ClVector* cx) { return as_clblast(stream, x, false, cx); }

// Two vectors paired element by element: both increments positive, or both negative.
inline bool clblast_vectors(kgb_stream stream, const kgb_tensor* x, const kgb_tensor* y, ClVector* cx, ClVector* cy) {
  const bool reverse = x->strides[0] < 0;
  return as_clblast(stream, x, reverse, cx) && as_clblast(stream, y, reverse, cy);
}

// A one-element result tensor (dot, asum) as CLBlast's output buffer and offset.
inline bool clblast_scalar(kgb_stream stream, const kgb_tensor* r, cl_mem* buffer, size_t* offset) {
  cl_long o = 0;
  if (kgb_cl_tensor_buffer(stream, r, buffer, &o) != CL_SUCCESS) return false;
  *offset = static_cast<size_t>(o);
  return true;
}

}  // namespace kgb::opencl::level1
