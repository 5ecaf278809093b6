// aten/fill_ in OpenCL. A fill stores one bit pattern everywhere: the value
// is converted once on the host (fill_.Scalar) or read by every work-item
// from the rank-0 value tensor (fill_.Tensor), and the program only knows
// element widths (built once per width, -DKGB_W=1|2|4|8|16; 16-byte
// elements are ulong2). The view is folded on the host into the fewest dims
// (size-1 dims dropped, dims by falling stride, adjacent dims fused when
// they tile):
//  - one contiguous run: each work-item writes 16 bytes with one vstoreN
//    (uchar16, ushort8, uint4, ulong2), the last one the ragged end;
//  - anything else: one work-item per element, offsets from the linear index.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#if KGB_W == 1
typedef uchar W; typedef uchar16 V;
#define PER 16
#define VSTORE vstore16
#elif KGB_W == 2
typedef ushort W; typedef ushort8 V;
#define PER 8
#define VSTORE vstore8
#elif KGB_W == 4
typedef uint W; typedef uint4 V;
#define PER 4
#define VSTORE vstore4
#elif KGB_W == 8
typedef ulong W; typedef ulong2 V;
#define PER 2
#define VSTORE vstore2
#else
typedef ulong2 W;
#define PER 1
#endif
typedef struct { long size[8]; long stride[8]; } Geometry;

void contiguous(__global W* p, long n, W v) {
  const long first = get_global_id(0) * PER;
#if PER > 1
  if (first + PER <= n) {
    VSTORE((V)(v), 0, p + first);
    return;
  }
#endif
  for (long i = first; i < n; ++i) p[i] = v;
}

void strided(__global W* p, const Geometry* g, int rank, long n, W v) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long offset = 0, rest = i;
  for (int d = rank - 1; d > 0; --d) {
    const long q = rest / g->size[d];
    offset += (rest - q * g->size[d]) * g->stride[d];
    rest = q;
  }
  p[offset + rest * g->stride[0]] = v;
}

__kernel void fill_contiguous(__global W* p, long p_off, long n, W v) { contiguous(p + p_off, n, v); }
__kernel void fill_contiguous_from(__global W* p, long p_off, long n, __global const W* src, long src_off) {
  contiguous(p + p_off, n, src[src_off]);
}
__kernel void fill_strided(__global W* p, long p_off, Geometry g, int rank, long n, W v) {
  strided(p + p_off, &g, rank, n, v);
}
__kernel void fill_strided_from(__global W* p, long p_off, Geometry g, int rank, long n, __global const W* src,
                                long src_off) {
  strided(p + p_off, &g, rank, n, src[src_off]);
}
)CLC";

struct Geometry {
  cl_long size[8];
  cl_long stride[8];
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

int fold(const kgb_tensor* t, Geometry& g) {
  cl_long size[8], stride[8];
  int raw = 0;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    size[raw] = t->sizes[d];
    stride[raw] = t->strides[d];
    ++raw;
  }
  for (int i = 1; i < raw; ++i)
    for (int j = i; j > 0 && stride[j - 1] < stride[j]; --j) {
      cl_long s = size[j]; size[j] = size[j - 1]; size[j - 1] = s;
      s = stride[j]; stride[j] = stride[j - 1]; stride[j - 1] = s;
    }
  int rank = 0;
  for (int d = 0; d < raw; ++d) {
    if (rank > 0 && g.stride[rank - 1] == stride[d] * size[d]) {
      g.size[rank - 1] *= size[d];
      g.stride[rank - 1] = stride[d];
      continue;
    }
    g.size[rank] = size[d];
    g.stride[rank] = stride[d];
    ++rank;
  }
  if (rank == 0) {
    g.size[0] = 1;
    g.stride[0] = 1;
    rank = 1;
  }
  for (int d = rank; d < 8; ++d) g.size[d] = 1, g.stride[d] = 0;
  return rank;
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

// `src` (fill_.Tensor) is read by the kernel; otherwise `bytes` is the value.
int fill(kgb_tensor* self, const kgb_tensor* src, const unsigned char bytes[16], kgb_stream stream) {
  const int32_t elem = kgb_dtype_size(self->dtype);
  const char* options = options_for(elem);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const cl_long n = kgb_numel(self);
  if (n == 0) return KGB_OK;
  Geometry g;
  const cl_int rank = fold(self, g);
  const bool contiguous = rank == 1 && g.stride[0] == 1;
  const char* name = contiguous ? (src ? "fill_contiguous_from" : "fill_contiguous") : (src ? "fill_strided_from" : "fill_strided");
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, name, &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, self);
  cl_uint next = 2;
  if (!contiguous) {
    err |= clSetKernelArg(k, next++, sizeof g, &g);
    err |= clSetKernelArg(k, next++, sizeof rank, &rank);
  }
  err |= clSetKernelArg(k, next++, sizeof n, &n);
  if (src) err |= kgb_cl_set_tensor_arg(stream, k, next, src);
  else err |= clSetKernelArg(k, next, static_cast<size_t>(elem), bytes);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_long per = 16 / elem;
  const cl_long items = contiguous ? (n + per - 1) / per : n;
  // Groups of up to 256 items: fewer work-groups to schedule.
  size_t local = kgb_cl_max_work_group_size(stream, k);
  if (local > 256) local = 256;
  if (local == 0) local = 64;
  const size_t global = (static_cast<size_t>(items) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_fill_(kgb_tensor* self, kgb_scalar value, kgb_stream stream) {
  unsigned char bytes[16];
  if (!encode(value, self->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill(self, nullptr, bytes, stream);
}

extern "C" int kgb_aten_fill__Tensor(kgb_tensor* self, const kgb_tensor* value, kgb_stream stream) {
  if (value->dtype != self->dtype || kgb_numel(value) != 1) return KGB_ERR_INVALID;
  return fill(self, value, nullptr, stream);
}
