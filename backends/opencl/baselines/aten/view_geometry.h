// View geometry shared by the plain OpenCL baselines of ATen's view ops
// (metadata only: nothing is enqueued).
#pragma once

#include <cstdint>

#include "kgb_kernel.h"

namespace kgb::opencl::plain {

// ATen's inferExpandGeometry: self viewed with `rank` sizes `size` (-1 keeps
// a dim of self), walked from the innermost dim; broadcast and new leading
// dims get stride 0. Writes out's rank, sizes, strides, data, offset, flags.
inline int expand_view(const kgb_tensor* self, const int64_t* size, int64_t rank, kgb_tensor* out) {
  const int64_t self_rank = self->rank;
  if (rank < self_rank || rank > KGB_MAX_RANK) return KGB_ERR_INVALID;
  kgb_tensor view = *out;
  view.rank = static_cast<int32_t>(rank);
  for (int64_t i = rank - 1; i >= 0; --i) {
    const int64_t j = i - (rank - self_rank);  // self's matching dim; < 0 for a new leading dim
    int64_t dim_size = j >= 0 ? self->sizes[j] : 1;
    int64_t stride = j >= 0 ? self->strides[j] : (i + 1 < rank ? view.sizes[i + 1] * view.strides[i + 1] : 1);
    const int64_t target = size[i] == -1 && j >= 0 ? dim_size : size[i];
    if (target < 0) return KGB_ERR_INVALID;
    if (target != dim_size) {
      if (dim_size != 1) return KGB_ERR_INVALID;
      dim_size = target;
      stride = 0;
    }
    view.sizes[i] = dim_size;
    view.strides[i] = stride;
  }
  view.data = self->data;
  view.storage_offset = self->storage_offset;
  view.flags = self->flags;
  *out = view;
  return KGB_OK;
}

}  // namespace kgb::opencl::plain
