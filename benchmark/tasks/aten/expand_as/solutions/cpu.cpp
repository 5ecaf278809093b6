// aten/expand_as on the CPU: the result is a view, so the entry only describes it.
// Dims are matched from the innermost against other's sizes; a kept dim keeps
// self's stride, a broadcast or new leading dim gets stride 0, and the first
// element (data, storage_offset) stays where self's is. No element is touched.
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_expand_as(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const int32_t rank = other->rank;
  if (rank < self->rank || rank > KGB_MAX_RANK) return KGB_ERR_INVALID;
  const int32_t leading = rank - self->rank;  // new dims in front of self's
  int64_t strides[KGB_MAX_RANK];
  for (int32_t i = 0; i < rank; ++i) {
    const int64_t target = other->sizes[i];
    if (i < leading) {
      strides[i] = 0;
      continue;
    }
    const int64_t have = self->sizes[i - leading];
    if (target == have) strides[i] = self->strides[i - leading];
    else if (have == 1) strides[i] = 0;
    else return KGB_ERR_INVALID;
  }
  for (int32_t i = 0; i < rank; ++i) {
    out->sizes[i] = other->sizes[i];
    out->strides[i] = strides[i];
  }
  out->rank = rank;
  out->data = self->data;
  out->storage_offset = self->storage_offset;
  out->flags = self->flags;
  return KGB_OK;
}
