// The plain baselines of ATen's allocation ops (aten/empty_strided,
// aten/new_empty_strided) on backends without libtorch: the harness's storage
// buffer stands in for the fresh allocation, and the result is described over
// it as ATen lays a new tensor out (storage offset 0, the strides as given).
#pragma once

#include "kgb_kernel.h"

namespace kgb {

inline int describe_allocation(kgb_int_list size, kgb_int_list stride, const kgb_tensor* storage, kgb_tensor* out) {
  if (size.count != stride.count || size.count > KGB_MAX_RANK) return KGB_ERR_INVALID;
  out->data = storage->data;
  out->storage_offset = storage->storage_offset;
  out->rank = static_cast<int32_t>(size.count);
  for (int64_t d = 0; d < size.count; ++d) {
    out->sizes[d] = size.values[d];
    out->strides[d] = stride.values[d];
  }
  out->flags = 0;
  return KGB_OK;
}

}  // namespace kgb
