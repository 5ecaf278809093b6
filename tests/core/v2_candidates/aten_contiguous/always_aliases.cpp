// Wrong: always returns self's view, also when self is not contiguous (a
// transpose, padded rows, a broadcast). ATen copies there: the result must be
// the row-major values in out (expected finding: view.unexpected_alias on the
// copy cases only; the alias cases pass).
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_contiguous(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  out->data = self->data;
  for (int d = 0; d < self->rank; ++d) {
    out->sizes[d] = self->sizes[d];
    out->strides[d] = self->strides[d];
  }
  out->storage_offset = self->storage_offset;
  out->flags = self->flags;
  return KGB_OK;
}
