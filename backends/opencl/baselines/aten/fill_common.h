// Shared by the plain OpenCL baselines of ATen's fill and creation ops
// (fill_, zero_, zeros, full, scalar_tensor, new_ones, ones_like, zeros_like):
// the value converted on the host as PyTorch's Scalar::to<T> does, then one
// work-item per element of the view storing its bytes (a program per
// element width).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "../plain_common.h"
#include "kgb_half.h"

namespace kgb::opencl::plain {

// The element bytes of `v` in `dtype`: f16/bf16 from the value rounded to
// float first, floats truncated into integers, integers wrapped.
inline bool scalar_bytes(const kgb_scalar& v, int32_t dtype, unsigned char bytes[16]) {
  const bool complex_value = v.dtype == KGB_C128;
  const double re = complex_value ? v.v.c.re : v.dtype == KGB_F64 ? v.v.f : static_cast<double>(v.v.i);
  const double im = complex_value ? v.v.c.im : 0.0;
  const bool integral = v.dtype == KGB_I64 || v.dtype == KGB_BOOL;
  const int64_t whole = integral ? v.v.i : static_cast<int64_t>(std::trunc(re));
  std::memset(bytes, 0, 16);
  auto put = [&](const auto& x) { std::memcpy(bytes, &x, sizeof x); };
  switch (dtype) {
    case KGB_BOOL: put(static_cast<uint8_t>(integral ? v.v.i != 0 : (re != 0 || im != 0))); return true;
    case KGB_U8: put(static_cast<uint8_t>(whole)); return true;
    case KGB_I8: put(static_cast<int8_t>(whole)); return true;
    case KGB_I16: put(static_cast<int16_t>(whole)); return true;
    case KGB_I32: put(static_cast<int32_t>(whole)); return true;
    case KGB_I64: put(whole); return true;
    case KGB_F16: put(kgb_float_to_f16(static_cast<float>(re))); return true;
    case KGB_BF16: put(kgb_float_to_bf16(static_cast<float>(re))); return true;
    case KGB_F32: put(static_cast<float>(re)); return true;
    case KGB_F64: put(re); return true;
    case KGB_C64: {
      const float parts[2] = {static_cast<float>(re), static_cast<float>(im)};
      put(parts);
      return true;
    }
    case KGB_C128: {
      const double parts[2] = {re, im};
      put(parts);
      return true;
    }
    default: return false;
  }
}

inline kgb_scalar int_scalar(int64_t i) {
  kgb_scalar s{};
  s.dtype = KGB_I64;
  s.v.i = i;
  return s;
}

inline const std::string& fill_source() {
  static const std::string source = std::string(dtype_prelude()) + R"CLC(
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
__kernel void fill_dense(__global W* o, long oo, long n, W v) {
  long i = get_global_id(0);
  if (i < n) o[oo + i] = v;
}
__kernel void fill_dense_from(__global W* o, long oo, long n, __global const W* src, long so) {
  long i = get_global_id(0);
  if (i < n) o[oo + i] = src[so];
}
__kernel void fill(__global W* o, long oo, Dims g, int rank, long n, W v) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  o[oo + a] = v;
}
__kernel void fill_from(__global W* o, long oo, Dims g, int rank, long n, __global const W* src, long so) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  o[oo + a] = src[so];
}
)CLC";
  return source;
}

// Every element of `out` set to `bytes` (or to the element of `src`, a
// one-element tensor of out's dtype). A row-major contiguous out is indexed
// directly; any other view through its strides.
inline int fill_view(kgb_tensor* out, const unsigned char bytes[16], const kgb_tensor* src, kgb_stream stream) {
  const int32_t elem = kgb_dtype_size(out->dtype);
  const char* options = elem == 1 ? "-cl-std=CL1.2 -DKGB_W=1"
                        : elem == 2 ? "-cl-std=CL1.2 -DKGB_W=2"
                        : elem == 4 ? "-cl-std=CL1.2 -DKGB_W=4"
                        : elem == 8 ? "-cl-std=CL1.2 -DKGB_W=8"
                        : elem == 16 ? "-cl-std=CL1.2 -DKGB_W=16"
                                     : nullptr;
  Dims g;
  bool dense = true;
  cl_long expected_stride = 1;
  for (int d = out->rank - 1; d >= 0; --d) {
    dense = dense && (out->sizes[d] == 1 || out->strides[d] == expected_stride);
    expected_stride *= out->sizes[d];
  }
  for (int d = 0; d < out->rank; ++d) g.add(out->sizes[d], out->strides[d]);
  if (g.count == 0) return KGB_OK;
  const char* name = dense ? (src ? "fill_dense_from" : "fill_dense") : (src ? "fill_from" : "fill");
  cl_kernel k = kernel(stream, fill_source(), options, name);
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out);
  if (!dense) args.dims(g);
  args.value(g.count);
  if (src) {
    args.tensor(src);
  } else if (args.error == CL_SUCCESS) {
    args.error = clSetKernelArg(k, args.next++, static_cast<size_t>(elem), bytes);
  }
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace kgb::opencl::plain
