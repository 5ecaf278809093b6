// aten/_local_scalar_dense on the CPU: self->data is host memory and already points at the
// element (storage_offset included), so one typed load and an exact widening
// into the Scalar's category. Integers stay integers all the way: an i64
// beyond 2^53 must not pass through a double.
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

template <typename T>
T load(const unsigned char* p) {
  T v;
  memcpy(&v, p, sizeof v);
  return v;
}

// The element's bytes as PyTorch's Scalar: bool -> KGB_BOOL, integers ->
// KGB_I64, floats -> KGB_F64, complex -> KGB_C128, each widened exactly.
int to_scalar(int32_t dtype, const unsigned char* p, kgb_scalar* out) {
  kgb_scalar r;
  memset(&r, 0, sizeof r);
  switch (dtype) {
    case KGB_BOOL: r.dtype = KGB_BOOL; r.v.i = load<uint8_t>(p) != 0; break;
    case KGB_U8: r.dtype = KGB_I64; r.v.i = load<uint8_t>(p); break;
    case KGB_I8: r.dtype = KGB_I64; r.v.i = load<int8_t>(p); break;
    case KGB_I16: r.dtype = KGB_I64; r.v.i = load<int16_t>(p); break;
    case KGB_I32: r.dtype = KGB_I64; r.v.i = load<int32_t>(p); break;
    case KGB_I64: r.dtype = KGB_I64; r.v.i = load<int64_t>(p); break;
    case KGB_F16: r.dtype = KGB_F64; r.v.f = kgb_f16_to_float(load<uint16_t>(p)); break;
    case KGB_BF16: r.dtype = KGB_F64; r.v.f = kgb_bf16_to_float(load<uint16_t>(p)); break;
    case KGB_F32: r.dtype = KGB_F64; r.v.f = load<float>(p); break;
    case KGB_F64: r.dtype = KGB_F64; r.v.f = load<double>(p); break;
    case KGB_C64:
      r.dtype = KGB_C128;
      r.v.c.re = load<float>(p);
      r.v.c.im = load<float>(p + sizeof(float));
      break;
    case KGB_C128:
      r.dtype = KGB_C128;
      r.v.c.re = load<double>(p);
      r.v.c.im = load<double>(p + sizeof(double));
      break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  *out = r;
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten__local_scalar_dense(const kgb_tensor* self, kgb_scalar* out, kgb_stream stream) {
  (void)stream;
  if (kgb_numel(self) != 1) return KGB_ERR_INVALID;
  return to_scalar(self->dtype, static_cast<const unsigned char*>(self->data), out);
}
