// Shared by the libtorch CPU baselines of ATen's allocation ops
// (aten/empty_strided, aten/new_empty_strided): the geometry of a tensor
// libtorch allocated (sizes, strides, storage offset) described over the
// harness's storage buffer, which stands in for the allocation.
#pragma once

#include <ATen/ATen.h>

#include <cstddef>

#include "kgb_kernel.h"

namespace kgb::cpu_aten {

inline int describe_fresh(const at::Tensor& fresh, const kgb_tensor* storage, kgb_tensor* out) {
  const int64_t elem = kgb_dtype_size(out->dtype);
  if (fresh.storage().nbytes() > static_cast<size_t>(kgb_numel(storage) * elem)) return KGB_ERR_INVALID;
  out->data = static_cast<char*>(storage->data) + fresh.storage_offset() * elem;
  out->storage_offset = storage->storage_offset + fresh.storage_offset();
  out->rank = static_cast<int32_t>(fresh.dim());
  for (int64_t d = 0; d < fresh.dim(); ++d) {
    out->sizes[d] = fresh.size(d);
    out->strides[d] = fresh.stride(d);
  }
  out->flags = 0;
  return KGB_OK;
}

}  // namespace kgb::cpu_aten
