// aten/scalar_tensor in HIP, a port of the CUDA solution: one element. The Scalar becomes the element's
// bytes once on the host (PyTorch's Scalar::to<T>); a one-thread kernel gets
// them as a by-value argument and stores them, so nothing waits on a host
// buffer and the only cost is the launch.
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// PyTorch's Scalar::to<T>: f16/bf16 are built from a float (the double is
// rounded to float first), floats truncate into integers, ints wrap.
bool encode(const kgb_scalar& v, int32_t dtype, unsigned char bytes[16]) {
  const bool complex_value = v.dtype == KGB_C128;
  const double re = complex_value ? v.v.c.re : v.dtype == KGB_F64 ? v.v.f : static_cast<double>(v.v.i);
  const double im = complex_value ? v.v.c.im : 0.0;
  const bool integral = v.dtype == KGB_I64 || v.dtype == KGB_BOOL;
  const int64_t as_int = integral ? v.v.i : static_cast<int64_t>(trunc(re));
  memset(bytes, 0, 16);
  switch (dtype) {
    case KGB_BOOL: { const uint8_t b = integral ? v.v.i != 0 : (re != 0 || im != 0); memcpy(bytes, &b, 1); return true; }
    case KGB_U8: { const uint8_t x = static_cast<uint8_t>(as_int); memcpy(bytes, &x, 1); return true; }
    case KGB_I8: { const int8_t x = static_cast<int8_t>(as_int); memcpy(bytes, &x, 1); return true; }
    case KGB_I16: { const int16_t x = static_cast<int16_t>(as_int); memcpy(bytes, &x, 2); return true; }
    case KGB_I32: { const int32_t x = static_cast<int32_t>(as_int); memcpy(bytes, &x, 4); return true; }
    case KGB_I64: { memcpy(bytes, &as_int, 8); return true; }
    case KGB_F16: { const uint16_t h = kgb_float_to_f16(static_cast<float>(re)); memcpy(bytes, &h, 2); return true; }
    case KGB_BF16: { const uint16_t h = kgb_float_to_bf16(static_cast<float>(re)); memcpy(bytes, &h, 2); return true; }
    case KGB_F32: { const float f = static_cast<float>(re); memcpy(bytes, &f, 4); return true; }
    case KGB_F64: { memcpy(bytes, &re, 8); return true; }
    case KGB_C64: {
      const float parts[2] = {static_cast<float>(re), static_cast<float>(im)};
      memcpy(bytes, parts, 8);
      return true;
    }
    case KGB_C128: {
      const double parts[2] = {re, im};
      memcpy(bytes, parts, 16);
      return true;
    }
    default: return false;
  }
}

template <typename W>
__global__ void store_one(W* __restrict__ p, W v) {
  *p = v;
}

template <typename W>
int launch(void* p, const unsigned char bytes[16], hipStream_t s) {
  W v;
  memcpy(&v, bytes, sizeof v);
  store_one<W><<<1, 1, 0, s>>>(static_cast<W*>(p), v);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_scalar_tensor(kgb_scalar s, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  if (out->rank != 0 || (dtype && *dtype != out->dtype)) return KGB_ERR_INVALID;
  unsigned char bytes[16];
  if (!encode(s, out->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  hipStream_t cs = static_cast<hipStream_t>(stream);
  switch (kgb_dtype_size(out->dtype)) {
    case 1: return launch<uint8_t>(out->data, bytes, cs);
    case 2: return launch<uint16_t>(out->data, bytes, cs);
    case 4: return launch<uint32_t>(out->data, bytes, cs);
    case 8: return launch<uint64_t>(out->data, bytes, cs);
    default: return launch<Bytes16>(out->data, bytes, cs);
  }
}
