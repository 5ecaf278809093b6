// Wrong on purpose: one memset from the view's first to its last element,
// which also clears the padding and the skipped elements between them.
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_zero_(kgb_tensor* self, kgb_stream stream) {
  (void)stream;
  int64_t extent = 1;
  for (int d = 0; d < self->rank; ++d) {
    if (self->sizes[d] == 0) return KGB_OK;
    extent += (self->sizes[d] - 1) * self->strides[d];
  }
  memset(self->data, 0, static_cast<size_t>(extent) * static_cast<size_t>(kgb_dtype_size(self->dtype)));
  return KGB_OK;
}
