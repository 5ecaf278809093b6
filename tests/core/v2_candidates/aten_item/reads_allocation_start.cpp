// Wrong: reads the first element of self's allocation instead of the element
// self->data points at, i.e. ignores that the tensor starts storage_offset
// elements into its storage. Right when the offset is 0, the harness's poison
// otherwise (expected: a value mismatch on the cases with an offset). On a GPU
// the same class of bug is reading the host buffer before the copy finished.
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

extern "C" int kgb_aten_item(const kgb_tensor* self, kgb_scalar* out, kgb_stream stream) {
  (void)stream;
  const int32_t elem = kgb_dtype_size(self->dtype);
  const unsigned char* p = static_cast<const unsigned char*>(self->data) - self->storage_offset * elem;  // the bug
  kgb_scalar r;
  memset(&r, 0, sizeof r);
  switch (self->dtype) {
    case KGB_BOOL: r.dtype = KGB_BOOL; r.v.i = p[0] != 0; break;
    case KGB_U8: r.dtype = KGB_I64; r.v.i = p[0]; break;
    case KGB_I8: r.dtype = KGB_I64; r.v.i = static_cast<int8_t>(p[0]); break;
    case KGB_I16: { int16_t v; memcpy(&v, p, sizeof v); r.dtype = KGB_I64; r.v.i = v; break; }
    case KGB_I32: { int32_t v; memcpy(&v, p, sizeof v); r.dtype = KGB_I64; r.v.i = v; break; }
    case KGB_I64: r.dtype = KGB_I64; memcpy(&r.v.i, p, sizeof r.v.i); break;
    case KGB_F16: { uint16_t v; memcpy(&v, p, sizeof v); r.dtype = KGB_F64; r.v.f = kgb_f16_to_float(v); break; }
    case KGB_BF16: { uint16_t v; memcpy(&v, p, sizeof v); r.dtype = KGB_F64; r.v.f = kgb_bf16_to_float(v); break; }
    case KGB_F32: { float v; memcpy(&v, p, sizeof v); r.dtype = KGB_F64; r.v.f = v; break; }
    case KGB_F64: r.dtype = KGB_F64; memcpy(&r.v.f, p, sizeof r.v.f); break;
    case KGB_C64: { float c[2]; memcpy(c, p, sizeof c); r.dtype = KGB_C128; r.v.c.re = c[0]; r.v.c.im = c[1]; break; }
    case KGB_C128: r.dtype = KGB_C128; memcpy(&r.v.c, p, sizeof r.v.c); break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  *out = r;
  return KGB_OK;
}
