// aten/i0 in OpenCL: out = I0(x), elementwise.
// float: Abramowitz & Stegun's polynomial approximations; double: power series up to |x| = 30, asymptotic expansion above.
// The host folds self and out into the fewest dimensions (size-1 dims
// dropped, dims contiguous in both merged): a unit-stride problem runs the
// flat kernel (four elements per work-item), anything else one work-item per
// element with offsets from the linear index. The program is built once per
// (input, output) dtype pair (-DKGB_IN/-DKGB_OUT); f16/bf16 are ushort data
// computed in float, f64 only where the device has fp64.
#include <stdint.h>

#include <string>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_IN
#define KGB_IN 6
#endif
#ifndef KGB_OUT
#define KGB_OUT 6
#endif
#if KGB_OUT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double C;
#else
typedef float C;
#endif

#if KGB_IN == 6
typedef float SI;
#define LOAD(v) (v)
#elif KGB_IN == 7
typedef double SI;
#define LOAD(v) (v)
#elif KGB_IN == 4
typedef ushort SI;
#define LOAD(v) kgb_f16_to_float(v)
#elif KGB_IN == 5
typedef ushort SI;
#define LOAD(v) kgb_bf16_to_float(v)
#elif KGB_IN == 2
typedef int SI;
#define LOAD(v) ((float)(v))
#elif KGB_IN == 3
typedef long SI;
#define LOAD(v) ((float)(v))
#elif KGB_IN == 0
typedef uchar SI;
#define LOAD(v) ((v) ? 1.0f : 0.0f)
#endif

#if KGB_OUT == 6
typedef float SO;
#define STORE(v) (v)
#elif KGB_OUT == 7
typedef double SO;
#define STORE(v) (v)
#elif KGB_OUT == 4
typedef ushort SO;
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_OUT == 5
typedef ushort SO;
#define STORE(v) kgb_float_to_bf16(v)
#endif
// Modified Bessel function of the first kind, order 0.
// float: the polynomial approximations of Abramowitz & Stegun 9.8.1 (|x| < 3.75)
// and 9.8.2 (above; e^-|x| sqrt(|x|) I0 in powers of 3.75/|x|), relative error
// below 1e-6 in float: a few multiply-adds and one exp, no data-dependent loop.
// double: the power series sum_k ((x/2)^2)^k / (k!)^2 up to |x| = 30, the
// asymptotic expansion e^|x| / sqrt(2 pi |x|) * sum_k prod_{j<=k} (2j-1)^2 / (8 j |x|)
// above. Both multiply e^|x| last, as ATen does: +inf exactly when e^|x|
// overflows the compute type, NaN at |x| = inf (inf * 0).
C bessel_i0(C x) {
  const C ax = fabs(x);
  if (sizeof(C) == 4) {
    if (ax < (C)(3.75)) {
      C t = ax / (C)(3.75);
      t *= t;
      return (C)(1) + t * ((C)(3.5156229) + t * ((C)(3.0899424) + t * ((C)(1.2067492) + t * ((C)(0.2659732) +
             t * ((C)(0.0360768) + t * (C)(0.0045813))))));
    }
    const C u = (C)(3.75) / ax;
    const C p = (C)(0.39894228) + u * ((C)(0.01328592) + u * ((C)(0.00225319) + u * ((C)(-0.00157565) + u * ((C)(0.00916281) +
                u * ((C)(-0.02057706) + u * ((C)(0.02635537) + u * ((C)(-0.01647633) + u * (C)(0.00392377))))))));
    return exp(ax) * (p / sqrt(ax));
  }
  if (ax <= (C)(30)) {
    const C q = (C)(0.25) * ax * ax;
    C term = 1, sum = 1;
    for (int k = 1; k < 120; ++k) {
      term *= q / (C)(k * k);
      sum += term;
      if (term <= sum * (C)(1e-17)) break;
    }
    return sum;
  }
  const C inv8x = (C)(1) / ((C)(8) * ax);
  C term = 1, sum = 1;
  for (int k = 1; k <= 25; ++k) {
    term *= (C)((2 * k - 1) * (2 * k - 1)) * inv8x / (C)(k);
    sum += term;
  }
  return exp(ax) * (sum / sqrt((C)(6.283185307179586476925) * ax));
}

// The op in compute type C.
C op(C x) {
  return bessel_i0(x);
}

__kernel void unary_flat(__global const SI* a, long a_off, __global SO* o, long o_off, long n) {
  long i = get_global_id(0) * 4;
  a += a_off;
  o += o_off;
  if (i + 4 <= n) {
    o[i] = STORE(op((C)LOAD(a[i])));
    o[i + 1] = STORE(op((C)LOAD(a[i + 1])));
    o[i + 2] = STORE(op((C)LOAD(a[i + 2])));
    o[i + 3] = STORE(op((C)LOAD(a[i + 3])));
  } else {
    for (; i < n; ++i) o[i] = STORE(op((C)LOAD(a[i])));
  }
}

typedef struct { long size[8]; long so[8]; long si[8]; } Geometry;

__kernel void unary_nd(__global const SI* a, long a_off, __global SO* o, long o_off, Geometry g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long oo = o_off, io = a_off, r = i;
  for (int d = rank - 1; d > 0; --d) {
    long q = r / g.size[d], k = r - q * g.size[d];
    r = q;
    oo += k * g.so[d];
    io += k * g.si[d];
  }
  oo += r * g.so[0];
  io += r * g.si[0];
  o[oo] = STORE(op((C)LOAD(a[io])));
}
)CLC";

struct Geometry {
  cl_long size[8], so[8], si[8];
};

bool fold(const kgb_tensor* self, const kgb_tensor* out, Geometry& g, int& rank) {
  if (self->rank != out->rank || out->rank > 8) return false;
  rank = 0;
  for (int d = 0; d < out->rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return false;
    if (out->sizes[d] == 1) continue;
    const int p = rank - 1;
    if (p >= 0 && g.so[p] == out->strides[d] * out->sizes[d] && g.si[p] == self->strides[d] * out->sizes[d]) {
      g.size[p] *= out->sizes[d];
      g.so[p] = out->strides[d];
      g.si[p] = self->strides[d];
      continue;
    }
    g.size[rank] = out->sizes[d];
    g.so[rank] = out->strides[d];
    g.si[rank] = self->strides[d];
    ++rank;
  }
  if (rank == 0) {
    rank = 1;
    g.size[0] = 1;
    g.so[0] = g.si[0] = 0;
  }
  for (int d = rank; d < 8; ++d) g.size[d] = 1, g.so[d] = g.si[d] = 0;
  return true;
}

// floating self gives the same dtype, integer and bool self give f32 (ATen's float(T)).
bool supported(int32_t in, int32_t out) {
  switch (in) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: return out == in;
    case KGB_I32: case KGB_I64: case KGB_BOOL: return out == KGB_F32;  // integer inputs give f32
    default: return false;
  }
}

}  // namespace

extern "C" int kgb_aten_i0(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  if (!supported(self->dtype, out->dtype)) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Geometry g{};
  int rank = 0;
  if (!fold(self, out, g, rank)) return KGB_ERR_INVALID;
  const cl_long count = kgb_numel(out);
  if (count == 0) return KGB_OK;
  const std::string options = "-cl-std=CL1.2 -DKGB_IN=" + std::to_string(self->dtype) + " -DKGB_OUT=" + std::to_string(out->dtype);
  const bool flat = rank == 1 && g.so[0] == 1 && g.si[0] == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options.c_str(), flat ? "unary_flat" : "unary_nd", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, out);
  cl_uint next = 4;
  if (!flat) {
    err |= clSetKernelArg(k, next++, sizeof g, &g);
    err |= clSetKernelArg(k, next++, sizeof rank, &rank);
  }
  err |= clSetKernelArg(k, next++, sizeof count, &count);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t items = flat ? static_cast<size_t>((count + 3) / 4) : static_cast<size_t>(count);
  const size_t global = (items + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
