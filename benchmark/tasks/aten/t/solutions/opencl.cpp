// aten/t on OpenCL: the result is a view, so the launcher only describes
// it and enqueues nothing. self->data names a place in an OpenCL buffer; the
// view lies in the same buffer (the harness resolves out->data like any
// tensor pointer, interior addresses included).
// A matrix swaps its two sizes and strides; a vector or a scalar is its own
// view. The first element (data, storage_offset) stays where self's is, and
// no element is touched.
#include <stdint.h>

#include "kgb_opencl.h"

extern "C" int kgb_aten_t(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const int32_t rank = self->rank;
  if (rank < 0 || rank > 2) return KGB_ERR_INVALID;
  for (int32_t d = 0; d < rank; ++d) {
    out->sizes[d] = self->sizes[rank - 1 - d];  // reversing 2 dims swaps them; 1 dim stays
    out->strides[d] = self->strides[rank - 1 - d];
  }
  out->rank = rank;
  out->data = self->data;
  out->storage_offset = self->storage_offset;
  out->flags = self->flags;
  return KGB_OK;
}
