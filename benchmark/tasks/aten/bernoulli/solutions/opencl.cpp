// aten/bernoulli in OpenCL: out[i] = u(seed, i) < p[i] ? 1 : 0.
// Counter-based: u is derived from (seed, logical row-major index i) with the
// splitmix64 finaliser, so the result depends on nothing else (not on the
// range or the scheduling). 53 random bits for f64, 24 for the other dtypes.
// One work-item per element; the host merges dimensions where self and out
// are both contiguous in the same way.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

ulong mix64(ulong x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}

#if KGB_DT == 6
typedef float S;
#define DRAW(p, r) ((float)((r) >> 40) * 0x1.0p-24f < (p) ? 1.0f : 0.0f)
#elif KGB_DT == 7
typedef double S;
#define DRAW(p, r) ((double)((r) >> 11) * 0x1.0p-53 < (p) ? 1.0 : 0.0)
#elif KGB_DT == 4
typedef ushort S;
#define DRAW(p, r) ((float)((r) >> 40) * 0x1.0p-24f < kgb_f16_to_float(p) ? (ushort)0x3C00 : (ushort)0)
#elif KGB_DT == 5
typedef ushort S;
#define DRAW(p, r) ((float)((r) >> 40) * 0x1.0p-24f < kgb_bf16_to_float(p) ? (ushort)0x3F80 : (ushort)0)
#endif

typedef struct { long size[8]; long sa[8]; long sb[8]; long lin[8]; } Geometry;

__kernel void bernoulli(__global S* out, long o_off, __global const S* self, long s_off, Geometry g, int rank, long n,
                        ulong seed) {
  long i = get_global_id(0);
  if (i >= n) return;
  long r = i, a = s_off, b = o_off, logical = 0;
  for (int d = rank - 1; d >= 0; --d) {
    long q = r / g.size[d], k = r - q * g.size[d];
    r = q;
    a += k * g.sa[d];
    b += k * g.sb[d];
    logical += k * g.lin[d];
  }
  ulong bits = mix64(seed ^ mix64((ulong)logical));
  out[b] = DRAW(self[a], bits);
}
)CLC";

struct Geometry {
  cl_long size[8], sa[8], sb[8], lin[8];
};

const char* build_options(int32_t dtype) {
  switch (dtype) {
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    case KGB_F64: return "-cl-std=CL1.2 -DKGB_DT=7";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_aten_bernoulli(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  if (self->rank != out->rank) return KGB_ERR_INVALID;
  // Dimensions with self and out strides and the row-major (logical) stride,
  // merged where all three allow it.
  Geometry g{};
  int rank = 0;
  cl_long n = 1, logical = 1;
  cl_long lin[8];
  for (int d = self->rank - 1; d >= 0; --d) {
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
    lin[d] = logical;
    logical *= self->sizes[d];
  }
  for (int d = 0; d < self->rank; ++d) {
    const cl_long size = self->sizes[d];
    n *= size;
    if (size == 1) continue;
    if (rank > 0 && g.sa[rank - 1] == self->strides[d] * size && g.sb[rank - 1] == out->strides[d] * size &&
        g.lin[rank - 1] == lin[d] * size) {
      g.size[rank - 1] *= size;
      g.sa[rank - 1] = self->strides[d];
      g.sb[rank - 1] = out->strides[d];
      g.lin[rank - 1] = lin[d];
      continue;
    }
    g.size[rank] = size;
    g.sa[rank] = self->strides[d];
    g.sb[rank] = out->strides[d];
    g.lin[rank] = lin[d];
    ++rank;
  }
  if (n == 0) return KGB_OK;
  const cl_ulong s = static_cast<cl_ulong>(seed);

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "bernoulli", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, self);
  err |= clSetKernelArg(k, 4, sizeof g, &g);
  err |= clSetKernelArg(k, 5, sizeof rank, &rank);
  err |= clSetKernelArg(k, 6, sizeof n, &n);
  err |= clSetKernelArg(k, 7, sizeof s, &s);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
