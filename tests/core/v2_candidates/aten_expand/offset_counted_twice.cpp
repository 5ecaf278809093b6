// Wrong: takes self->data for the start of the allocation and adds
// storage_offset to it, although data already includes it. Where self starts
// inside its allocation the view points elsewhere: past the allocation's end
// for a one-element self with an offset (expected finding:
// view.outside_storage), else at the wrong place (view.storage_offset).
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_expand(const kgb_tensor* self, kgb_int_list size, int implicit, kgb_tensor* out,
                               kgb_stream stream) {
  (void)implicit;
  (void)stream;
  const int64_t rank = size.count, leading = rank - self->rank;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t j = i - leading;
    const int64_t have = j >= 0 ? self->sizes[j] : 1;
    const int64_t target = size.values[i] == -1 ? have : size.values[i];
    out->sizes[i] = target;
    out->strides[i] = j >= 0 && target == have ? self->strides[j] : 0;
  }
  out->rank = static_cast<int32_t>(rank);
  out->data = static_cast<char*>(self->data) + self->storage_offset * kgb_dtype_size(self->dtype);  // the bug
  out->storage_offset = self->storage_offset;
  return KGB_OK;
}
