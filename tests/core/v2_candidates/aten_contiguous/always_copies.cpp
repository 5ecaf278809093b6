// Wrong: always materialises the row-major copy into out, also when self is
// already contiguous and ATen returns self. The values are right, but out is
// not the alias ATen gives (expected finding: view.mismatch on the alias
// cases only; the copy cases pass).
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_contiguous(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const int64_t n = kgb_numel(self), elem = kgb_dtype_size(self->dtype);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, from = 0;
    for (int d = self->rank - 1; d >= 0; --d) {
      from += (rest % self->sizes[d]) * self->strides[d];
      rest /= self->sizes[d];
    }
    memcpy((char*)out->data + i * elem, (const char*)self->data + from * elem, (size_t)elem);
  }
  return KGB_OK;
}
