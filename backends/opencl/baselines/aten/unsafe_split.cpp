// aten/unsafe_split (unsafe_split.Tensor), plain OpenCL baseline: ATen's
// split geometry written out, one narrow per chunk (views: metadata only,
// nothing enqueued). The task is untimed; the baseline exists so that every
// platform can run every entry.
#include <algorithm>

#include "../plain_common.h"
#include "kgb_entries/aten/unsafe_split.h"

namespace kgb::opencl::plain {
namespace {

int unsafe_split(const kgb_tensor* self, int64_t split_size, int64_t dim, kgb_tensor_list* out, kgb_stream /*stream*/) {
  const int32_t rank = self->rank;
  if (rank == 0 || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  dim = normalise_dim(dim, rank);
  const int64_t size = self->sizes[dim];
  if (split_size < 0 || (split_size == 0 && size > 0)) return KGB_ERR_INVALID;
  // One chunk for an empty dim (split_size 0 included) or split_size >= size.
  const int64_t chunks = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  if (out->count != chunks) return KGB_ERR_INVALID;
  for (int64_t k = 0; k < chunks; ++k) {
    kgb_tensor view = *self;  // self's rank, sizes, strides and flags
    view.dtype = out->items[k]->dtype;
    view.reserved = out->items[k]->reserved;
    view.sizes[dim] = std::min(split_size, size - k * split_size);
    view.data = static_cast<char*>(self->data) + k * split_size * self->strides[dim] * kgb_dtype_size(self->dtype);
    view.storage_offset = self->storage_offset + k * split_size * self->strides[dim];
    *out->items[k] = view;
  }
  return KGB_OK;
}

}  // namespace
KGB_BASELINE(aten_unsafe_split, kKind, unsafe_split);
}  // namespace kgb::opencl::plain
