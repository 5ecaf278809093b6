// Wrong: every chunk gets the right sizes but starts where self starts (data
// and storage_offset never move by k * split_size along dim): chunk 0 is
// right, every later chunk describes the first one's elements again
// (expected finding: view.mismatch, only in cases with more than one chunk).
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_unsafe_split(const kgb_tensor* self, int64_t split_size, int64_t dim, kgb_tensor_list* out,
                                     kgb_stream stream) {
  (void)stream;
  const int32_t rank = self->rank;
  if (dim < 0) dim += rank;
  const int64_t size = self->sizes[dim];
  for (int64_t k = 0; k < out->count; ++k) {
    kgb_tensor* item = out->items[k];
    const int64_t left = size - k * split_size;
    for (int32_t d = 0; d < rank; ++d) {
      item->sizes[d] = d == dim ? (left < split_size ? left : split_size) : self->sizes[d];
      item->strides[d] = self->strides[d];
    }
    item->rank = rank;
    item->data = self->data;  // the bug: no k * split_size * strides[dim]
    item->storage_offset = self->storage_offset;
    item->flags = self->flags;
  }
  return KGB_OK;
}
