// Wrong: places chunk k at k * split_size * (product of the sizes after dim)
// elements, the offset of a contiguous self, instead of using self's stride
// along dim. Right for contiguous selves; transposed, padded, stepped and
// broadcast selves put later chunks elsewhere (expected finding:
// view.mismatch, or view.outside_storage where the guess leaves self).
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_unsafe_split(const kgb_tensor* self, int64_t split_size, int64_t dim, kgb_tensor_list* out,
                                     kgb_stream stream) {
  (void)stream;
  const int32_t rank = self->rank;
  if (dim < 0) dim += rank;
  const int64_t size = self->sizes[dim];
  int64_t inner = 1;  // the contiguous stride of dim: the bug
  for (int32_t d = dim + 1; d < rank; ++d) inner *= self->sizes[d];
  for (int64_t k = 0; k < out->count; ++k) {
    kgb_tensor* item = out->items[k];
    const int64_t left = size - k * split_size;
    for (int32_t d = 0; d < rank; ++d) {
      item->sizes[d] = d == dim ? (left < split_size ? left : split_size) : self->sizes[d];
      item->strides[d] = self->strides[d];
    }
    const int64_t step = k * split_size * inner;
    item->rank = rank;
    item->data = (char*)self->data + step * kgb_dtype_size(self->dtype);
    item->storage_offset = self->storage_offset + step;
    item->flags = self->flags;
  }
  return KGB_OK;
}
