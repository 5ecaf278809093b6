// aten/as_strided in HIP: the result is a view, so the entry only describes it and
// launches nothing (self->data is a device pointer, never dereferenced).
// Sizes and strides are taken as given; a given storage_offset counts from
// the start of self's allocation, so data moves by its difference to self's.
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_as_strided(const kgb_tensor* self, kgb_int_list size, kgb_int_list stride,
                                   const int64_t* storage_offset, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (size.count != stride.count || size.count < 0 || size.count > KGB_MAX_RANK) return KGB_ERR_INVALID;
  const int64_t offset = storage_offset ? *storage_offset : self->storage_offset;
  if (offset < 0) return KGB_ERR_INVALID;
  for (int64_t d = 0; d < size.count; ++d) {
    if (size.values[d] < 0 || stride.values[d] < 0) return KGB_ERR_INVALID;
    out->sizes[d] = size.values[d];
    out->strides[d] = stride.values[d];
  }
  out->rank = (int32_t)size.count;
  out->data = (char*)self->data + (offset - self->storage_offset) * kgb_dtype_size(self->dtype);
  out->storage_offset = offset;
  out->flags = self->flags;
  return KGB_OK;
}
