// aten/unsafe_split on the CPU: the result is a list of views, so the entry only describes it.
// Chunk k keeps self's dims and strides, has min(split_size, size - k *
// split_size) indices along dim and starts k * split_size indices further
// (data and storage_offset move together). No element is touched.
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_unsafe_split(const kgb_tensor* self, int64_t split_size, int64_t dim, kgb_tensor_list* out,
                                     kgb_stream stream) {
  (void)stream;
  const int32_t rank = self->rank;
  if (rank < 1 || rank > KGB_MAX_RANK || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int64_t size = self->sizes[dim];
  if (split_size < 0 || (split_size == 0 && size > 0)) return KGB_ERR_INVALID;
  int64_t chunks = split_size == 0 ? 1 : (size + split_size - 1) / split_size;
  if (chunks < 1) chunks = 1;  // an empty dim still gives one (empty) chunk
  if (out->count != chunks) return KGB_ERR_INVALID;
  const int32_t elem = kgb_dtype_size(self->dtype);
  for (int64_t k = 0; k < chunks; ++k) {
    kgb_tensor* item = out->items[k];
    const int64_t start = k * split_size;
    const int64_t left = size - start;
    const int64_t step = start * self->strides[dim];  // elements from self's first element
    for (int32_t d = 0; d < rank; ++d) {
      item->sizes[d] = d == dim ? (left < split_size ? left : split_size) : self->sizes[d];
      item->strides[d] = self->strides[d];
    }
    item->rank = rank;
    item->data = (char*)self->data + step * elem;
    item->storage_offset = self->storage_offset + step;
    item->flags = self->flags;
  }
  return KGB_OK;
}
