// Wrong: a broadcast dim (self's size 1 expanded to n > 1) keeps self's
// stride instead of getting stride 0, so the view walks past the one element
// it should repeat (expected finding: view.mismatch). Everything else is right.
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_expand(const kgb_tensor* self, kgb_int_list size, int implicit, kgb_tensor* out,
                               kgb_stream stream) {
  (void)implicit;
  (void)stream;
  const int64_t rank = size.count, leading = rank - self->rank;
  for (int64_t i = 0; i < rank; ++i) {
    if (i < leading) {
      out->sizes[i] = size.values[i];
      out->strides[i] = 0;
      continue;
    }
    const int64_t have = self->sizes[i - leading];
    out->sizes[i] = size.values[i] == -1 ? have : size.values[i];
    out->strides[i] = self->strides[i - leading];  // the bug: 0 when have == 1 and the size grows
  }
  out->rank = static_cast<int32_t>(rank);
  out->data = self->data;
  out->storage_offset = self->storage_offset;
  return KGB_OK;
}
