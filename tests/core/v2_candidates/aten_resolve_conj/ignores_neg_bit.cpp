// Wrong: resolves only the conj bit and ignores a neg bit set with it. ATen's
// copy_ resolves every flag, so with both bits the logical value is
// -conj(stored) (expected finding: mismatch on the conj + neg cases only).
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_resolve_conj(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (!(self->flags & KGB_TENSOR_CONJ)) {
    out->data = self->data;
    for (int d = 0; d < self->rank; ++d) {
      out->sizes[d] = self->sizes[d];
      out->strides[d] = self->strides[d];
    }
    out->storage_offset = self->storage_offset;
    out->flags = self->flags;
    return KGB_OK;
  }
  const int64_t n = kgb_numel(self), elem = kgb_dtype_size(self->dtype);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, from = 0, to = 0;
    for (int d = self->rank - 1; d >= 0; --d) {
      from += (rest % self->sizes[d]) * self->strides[d];
      to += (rest % out->sizes[d]) * out->strides[d];
      rest /= self->sizes[d];
    }
    unsigned char* dst = (unsigned char*)out->data + to * elem;
    memcpy(dst, (const unsigned char*)self->data + from * elem, (size_t)elem);
    dst[elem - 1] ^= 0x80;  // the imaginary part's sign (little-endian); the neg bit is the bug
  }
  return KGB_OK;
}
