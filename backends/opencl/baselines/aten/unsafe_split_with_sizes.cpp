// aten/unsafe_split_with_sizes, plain OpenCL baseline: ATen's split geometry
// written out, one narrow per chunk at the running sum of the lengths (views:
// metadata only, nothing enqueued). The task is untimed; the baseline exists
// so that every platform can run every entry.
#include "../plain_common.h"
#include "kgb_entries/aten/unsafe_split_with_sizes.h"

namespace kgb::opencl::plain {
namespace {

int unsafe_split_with_sizes(const kgb_tensor* self, kgb_int_list split_sizes, int64_t dim, kgb_tensor_list* out,
                            kgb_stream /*stream*/) {
  const int32_t rank = self->rank;
  if (rank == 0 || dim < -rank || dim >= rank || out->count != split_sizes.count) return KGB_ERR_INVALID;
  dim = normalise_dim(dim, rank);
  int64_t start = 0;
  for (int64_t k = 0; k < split_sizes.count; ++k) {
    if (split_sizes.values[k] < 0) return KGB_ERR_INVALID;
    kgb_tensor view = *self;  // self's rank, sizes, strides and flags
    view.dtype = out->items[k]->dtype;
    view.reserved = out->items[k]->reserved;
    view.sizes[dim] = split_sizes.values[k];
    view.data = static_cast<char*>(self->data) + start * self->strides[dim] * kgb_dtype_size(self->dtype);
    view.storage_offset = self->storage_offset + start * self->strides[dim];
    *out->items[k] = view;
    start += split_sizes.values[k];
  }
  return start == self->sizes[dim] ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_unsafe_split_with_sizes, kKind, unsafe_split_with_sizes);
}  // namespace kgb::opencl::plain
