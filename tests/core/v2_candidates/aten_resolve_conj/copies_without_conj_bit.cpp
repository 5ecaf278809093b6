// Wrong: always materialises the logical values into out, also when self has
// no conj bit and ATen returns self itself (expected finding: view.mismatch
// on the alias cases only; the conj cases pass).
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_resolve_conj(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const int64_t n = kgb_numel(self), elem = kgb_dtype_size(self->dtype);
  const int complex = self->dtype == KGB_C64 || self->dtype == KGB_C128;
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, from = 0, to = 0;
    for (int d = self->rank - 1; d >= 0; --d) {
      from += (rest % self->sizes[d]) * self->strides[d];
      to += (rest % out->sizes[d]) * out->strides[d];
      rest /= self->sizes[d];
    }
    unsigned char* dst = (unsigned char*)out->data + to * elem;
    memcpy(dst, (const unsigned char*)self->data + from * elem, (size_t)elem);
    // Little-endian sign bytes: the real part's ends at elem / 2 (complex) or elem.
    const int conj = (self->flags & KGB_TENSOR_CONJ) != 0, neg = (self->flags & KGB_TENSOR_NEG) != 0;
    if (complex && conj != neg) dst[elem - 1] ^= 0x80;             // imaginary part: conj xor neg
    if (neg) dst[(complex ? elem / 2 : elem) - 1] ^= 0x80;  // real part: neg
  }
  return KGB_OK;
}
