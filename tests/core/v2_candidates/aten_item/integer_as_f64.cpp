// Wrong: returns every real value as a double (KGB_F64), integers and bool
// included. PyTorch's Scalar keeps the category: bool -> KGB_BOOL, integers ->
// KGB_I64 (expected: a mismatch on the result's dtype, e.g. "expected i64 ...,
// got f64 ..."). Floats and complex are right.
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

extern "C" int kgb_aten_item(const kgb_tensor* self, kgb_scalar* out, kgb_stream stream) {
  (void)stream;
  const unsigned char* p = static_cast<const unsigned char*>(self->data);
  kgb_scalar r;
  memset(&r, 0, sizeof r);
  r.dtype = KGB_F64;
  switch (self->dtype) {
    case KGB_BOOL: case KGB_U8: r.v.f = p[0]; break;
    case KGB_I8: r.v.f = static_cast<int8_t>(p[0]); break;
    case KGB_I16: { int16_t v; memcpy(&v, p, sizeof v); r.v.f = v; break; }
    case KGB_I32: { int32_t v; memcpy(&v, p, sizeof v); r.v.f = v; break; }
    case KGB_I64: { int64_t v; memcpy(&v, p, sizeof v); r.v.f = static_cast<double>(v); break; }
    case KGB_F16: { uint16_t v; memcpy(&v, p, sizeof v); r.v.f = kgb_f16_to_float(v); break; }
    case KGB_BF16: { uint16_t v; memcpy(&v, p, sizeof v); r.v.f = kgb_bf16_to_float(v); break; }
    case KGB_F32: { float v; memcpy(&v, p, sizeof v); r.v.f = v; break; }
    case KGB_F64: memcpy(&r.v.f, p, sizeof r.v.f); break;
    case KGB_C64: { float c[2]; memcpy(c, p, sizeof c); r.dtype = KGB_C128; r.v.c.re = c[0]; r.v.c.im = c[1]; break; }
    case KGB_C128: r.dtype = KGB_C128; memcpy(&r.v.c, p, sizeof r.v.c); break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  *out = r;
  return KGB_OK;
}
