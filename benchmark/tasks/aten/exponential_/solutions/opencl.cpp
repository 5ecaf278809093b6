// aten/exponential_ in OpenCL: self[i] = -log(u(seed, i)) / lambd.
// Counter-based: u is derived from (seed, logical row-major index i) with the
// splitmix64 finaliser, so the result depends on nothing else (not on the
// range or the scheduling). 24 random bits give u in (0, 1] for the float
// dtypes (computed in float, rounded once to f16/bf16), 53 bits for f64. One
// work-item per element; a row-major self skips the index unravelling.
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

#define DRAW_FLOAT(r, inv) (-log((float)(((r) >> 40) + 1) * 0x1.0p-24f) * (float)(inv))
#if KGB_DT == 6
typedef float S;
typedef float INV;
#define DRAW(r, inv) DRAW_FLOAT(r, inv)
#elif KGB_DT == 7
typedef double S;
typedef double INV;
#define DRAW(r, inv) (-log((double)(((r) >> 11) + 1) * 0x1.0p-53) * (inv))
#elif KGB_DT == 4
typedef ushort S;
typedef float INV;
#define DRAW(r, inv) kgb_float_to_f16(DRAW_FLOAT(r, inv))
#elif KGB_DT == 5
typedef ushort S;
typedef float INV;
#define DRAW(r, inv) kgb_float_to_bf16(DRAW_FLOAT(r, inv))
#endif

typedef struct { long size[8]; long stride[8]; } Geometry;

__kernel void exponential(__global S* self, long off, Geometry g, int rank, long n, int dense, ulong key, INV inv) {
  long i = get_global_id(0);
  if (i >= n) return;
  long at = off;
  if (dense) {
    at += i;
  } else {
    long r = i;
    for (int d = rank - 1; d >= 0; --d) {
      long q = r / g.size[d];
      at += (r - q * g.size[d]) * g.stride[d];
      r = q;
    }
  }
  self[at] = DRAW(mix64(key ^ mix64((ulong)i)), inv);
}
)CLC";

const char* build_options(int32_t dtype) {
  switch (dtype) {
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    case KGB_F64: return "-cl-std=CL1.2 -DKGB_DT=7";
    default: return nullptr;
  }
}

// The same layout as the OpenCL C struct Geometry.
struct Geometry {
  cl_long size[8] = {}, stride[8] = {};
};

uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

extern "C" int kgb_aten_exponential_(kgb_tensor* self, double lambd, int64_t seed, kgb_stream stream) {
  if (!(lambd > 0)) return KGB_ERR_INVALID;
  const char* options = build_options(self->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Geometry g;
  cl_long n = 1;
  cl_int dense = 1;
  for (int d = self->rank - 1; d >= 0; --d) {
    g.size[d] = self->sizes[d];
    g.stride[d] = self->strides[d];
    if (self->sizes[d] != 1 && self->strides[d] != n) dense = 0;
    n *= self->sizes[d];
  }
  if (n == 0) return KGB_OK;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "exponential", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_int rank = self->rank;
  const cl_ulong key = mix64(static_cast<uint64_t>(seed));
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, self);
  err |= clSetKernelArg(k, 2, sizeof(Geometry), &g);
  err |= clSetKernelArg(k, 3, sizeof(cl_int), &rank);
  err |= clSetKernelArg(k, 4, sizeof(cl_long), &n);
  err |= clSetKernelArg(k, 5, sizeof(cl_int), &dense);
  err |= clSetKernelArg(k, 6, sizeof(cl_ulong), &key);
  if (self->dtype == KGB_F64) {
    const cl_double inv = 1.0 / lambd;
    err |= clSetKernelArg(k, 7, sizeof(cl_double), &inv);
  } else {
    const cl_float inv = static_cast<cl_float>(1.0 / lambd);
    err |= clSetKernelArg(k, 7, sizeof(cl_float), &inv);
  }
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
