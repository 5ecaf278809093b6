// aten/unsafe_split_with_sizes on CUDA: the result is a list of views, so the entry only describes it and
// launches nothing (self->data is a device pointer, never dereferenced).
// Chunk k keeps self's dims and strides, has split_sizes[k] indices along dim
// and starts after the lengths before it (data and storage_offset move
// together). The lengths are checked first; no element is touched.
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_unsafe_split_with_sizes(const kgb_tensor* self, kgb_int_list split_sizes, int64_t dim,
                                                kgb_tensor_list* out, kgb_stream stream) {
  (void)stream;
  const int32_t rank = self->rank;
  if (rank < 1 || rank > KGB_MAX_RANK || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  if (out->count != split_sizes.count) return KGB_ERR_INVALID;
  int64_t total = 0;
  for (int64_t k = 0; k < split_sizes.count; ++k) {
    if (split_sizes.values[k] < 0) return KGB_ERR_INVALID;
    total += split_sizes.values[k];
  }
  if (total != self->sizes[dim]) return KGB_ERR_INVALID;
  const int32_t elem = kgb_dtype_size(self->dtype);
  int64_t start = 0;
  for (int64_t k = 0; k < split_sizes.count; ++k) {
    kgb_tensor* item = out->items[k];
    const int64_t step = start * self->strides[dim];  // elements from self's first element
    for (int32_t d = 0; d < rank; ++d) {
      item->sizes[d] = d == dim ? split_sizes.values[k] : self->sizes[d];
      item->strides[d] = self->strides[d];
    }
    item->rank = rank;
    item->data = (char*)self->data + step * elem;
    item->storage_offset = self->storage_offset + step;
    item->flags = self->flags;
    start += split_sizes.values[k];
  }
  return KGB_OK;
}
