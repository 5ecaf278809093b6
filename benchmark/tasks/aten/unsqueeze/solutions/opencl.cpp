// aten/unsqueeze on OpenCL: the result is a view, so the launcher only describes
// it and enqueues nothing. self->data names a place in an OpenCL buffer; the
// view lies in the same buffer (the harness resolves out->data like any
// tensor pointer, interior addresses included).
// A size-1 dim goes in at the wrapped position with ATen's stride (the next
// dim's extent, 1 at the end); self's dims keep their sizes and strides, and
// the first element (data, storage_offset) does not move.
#include <stdint.h>

#include "kgb_opencl.h"

extern "C" int kgb_aten_unsqueeze(const kgb_tensor* self, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const int32_t rank = self->rank;
  if (rank < 0 || rank >= KGB_MAX_RANK) return KGB_ERR_INVALID;
  if (dim < -(rank + 1) || dim > rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank + 1;  // counts from the end of the result
  const int32_t at = (int32_t)dim;
  int64_t sizes[KGB_MAX_RANK], strides[KGB_MAX_RANK];
  for (int32_t d = 0, s = 0; d <= rank; ++d) {
    if (d == at) {
      sizes[d] = 1;
      strides[d] = at < rank ? self->sizes[at] * self->strides[at] : 1;
    } else {
      sizes[d] = self->sizes[s];
      strides[d] = self->strides[s];
      ++s;
    }
  }
  for (int32_t d = 0; d <= rank; ++d) {
    out->sizes[d] = sizes[d];
    out->strides[d] = strides[d];
  }
  out->rank = rank + 1;
  out->data = self->data;
  out->storage_offset = self->storage_offset;
  out->flags = self->flags;
  return KGB_OK;
}
