// aten/scalar_tensor in OpenCL: one element. The Scalar becomes the
// element's bytes once on the host (PyTorch's Scalar::to<T>); a one-item
// kernel (built per element width, -DKGB_W=1|2|4|8|16) gets them as a
// by-value argument and stores them, so nothing waits on a host buffer.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#if KGB_W == 1
typedef uchar W;
#elif KGB_W == 2
typedef ushort W;
#elif KGB_W == 4
typedef uint W;
#elif KGB_W == 8
typedef ulong W;
#else
typedef ulong2 W;
#endif
__kernel void store_one(__global W* p, long p_off, W v) { p[p_off] = v; }
)CLC";

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

const char* options_for(int32_t elem) {
  switch (elem) {
    case 1: return "-cl-std=CL1.2 -DKGB_W=1";
    case 2: return "-cl-std=CL1.2 -DKGB_W=2";
    case 4: return "-cl-std=CL1.2 -DKGB_W=4";
    case 8: return "-cl-std=CL1.2 -DKGB_W=8";
    case 16: return "-cl-std=CL1.2 -DKGB_W=16";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_aten_scalar_tensor(kgb_scalar s, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  if (out->rank != 0 || (dtype && *dtype != out->dtype)) return KGB_ERR_INVALID;
  unsigned char bytes[16];
  if (!encode(s, out->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  const int32_t elem = kgb_dtype_size(out->dtype);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options_for(elem), "store_one", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= clSetKernelArg(k, 2, static_cast<size_t>(elem), bytes);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t one = 1;
  return kgb_cl_enqueue(stream, k, 1, &one, &one) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
