// aten/poisson in OpenCL: out[i] ~ Poisson(self[i]).
// Counter-based: element i (logical row-major index) draws its uniforms from
// its own splitmix64 stream keyed by (seed, i), so the result depends on
// nothing else (not on the range or the scheduling). Rates below 10 use
// inversion by sequential search, larger ones Hoermann's PTRS transformed
// rejection. f32, f16 and bf16 sample in float (no fp64 needed): the proposal
// is formed around floor(rate) and the acceptance test uses the cancellation-
// free log P(k) = d - k log1p(d / rate) - log(2 pi k) / 2 - stirling(k),
// d = k - rate; f64 samples in double with lgamma. One work-item per
// element; a row-major self and out skip the index unravelling.
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
ulong next_bits(ulong* state) {
  *state += 0x9E3779B97F4A7C15UL;
  ulong z = *state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
  return z ^ (z >> 31);
}

#if KGB_DT == 7
double poisson_draw(double rate, ulong s) {
  if (rate == 0.0) return 0.0;
  if (rate < 10.0) {
    double u = ((double)(next_bits(&s) >> 11) + 0.5) * 0x1.0p-53, p = exp(-rate), f = p;
    int k = 0;
    while (u > f && k < 1000) { ++k; p *= rate / k; f += p; }
    return (double)k;
  }
  double slam = sqrt(rate), loglam = log(rate);
  double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  double lia = log(1.1239 + 1.1328 / (b - 3.4)), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    double u = ((double)(next_bits(&s) >> 11) + 0.5) * 0x1.0p-53 - 0.5;
    double v = ((double)(next_bits(&s) >> 11) + 0.5) * 0x1.0p-53;
    double us = 0.5 - fabs(u);
    double k = floor((2.0 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (log(v) + lia - log(a / (us * us) + b) <= -rate + k * loglam - lgamma(k + 1.0)) return k;
  }
}
typedef double S;
#define LOAD(v) (v)
#define STORE(k) (k)
#else
float poisson_draw(float rate, ulong s) {
  if (rate == 0.0f) return 0.0f;
  if (rate < 10.0f) {
    float u = ((float)(next_bits(&s) >> 40) + 0.5f) * 0x1.0p-24f, p = exp(-rate), f = p;
    int k = 0;
    while (u > f) {
      ++k;
      p *= rate / (float)k;
      if (p < 1e-12f) break;
      f += p;
    }
    return (float)k;
  }
  float whole = floor(rate), frac = rate - whole, slam = sqrt(rate);
  float b = 0.931f + 2.53f * slam, a = -0.059f + 0.02483f * b;
  float lia = log(1.1239f + 1.1328f / (b - 3.4f)), vr = 0.9277f - 3.6224f / (b - 2.0f);
  for (;;) {
    float u = ((float)(next_bits(&s) >> 40) + 0.5f) * 0x1.0p-24f - 0.5f;
    float v = ((float)(next_bits(&s) >> 40) + 0.5f) * 0x1.0p-24f;
    float us = 0.5f - fabs(u);
    float k = whole + floor((2.0f * a / us + b) * u + frac + 0.43f);
    if (us >= 0.07f && v <= vr) return k;
    if (k < 0.0f || (us < 0.013f && v > us)) continue;
    float log_pk;
    if (k >= 10.0f) {
      float d = k - rate, r = 1.0f / k, r2 = r * r;
      float stirling = r * (1.0f / 12.0f - r2 * (1.0f / 360.0f - r2 * (1.0f / 1260.0f)));
      log_pk = d - k * log1p(d / rate) - 0.5f * log(6.28318530718f * k) - stirling;
    } else {
      log_pk = -rate + k * log(rate) - lgamma(k + 1.0f);
    }
    if (log(v) + lia - log(a / (us * us) + b) <= log_pk) return k;
  }
}
#if KGB_DT == 6
typedef float S;
#define LOAD(v) (v)
#define STORE(k) (k)
#elif KGB_DT == 4
typedef ushort S;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(k) kgb_float_to_f16(k)
#else
typedef ushort S;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(k) kgb_float_to_bf16(k)
#endif
#endif

typedef struct { long size[8]; long in_stride[8]; long out_stride[8]; } Geometry;

__kernel void poisson(__global const S* in, long in_off, __global S* out, long out_off, Geometry g, int rank, long n,
                      int dense, ulong key) {
  long i = get_global_id(0);
  if (i >= n) return;
  long io = in_off, oo = out_off;
  if (dense) {
    io += i;
    oo += i;
  } else {
    long r = i;
    for (int d = rank - 1; d >= 0; --d) {
      long q = r / g.size[d], c = r - q * g.size[d];
      io += c * g.in_stride[d];
      oo += c * g.out_stride[d];
      r = q;
    }
  }
  out[oo] = STORE(poisson_draw(LOAD(in[io]), key ^ mix64((ulong)i)));
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
  cl_long size[8] = {}, in_stride[8] = {}, out_stride[8] = {};
};

uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

extern "C" int kgb_aten_poisson(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Geometry g;
  cl_long n = 1;
  cl_int dense = 1;
  for (int d = out->rank - 1; d >= 0; --d) {
    g.size[d] = out->sizes[d];
    g.in_stride[d] = self->strides[d];
    g.out_stride[d] = out->strides[d];
    if (out->sizes[d] != 1 && (out->strides[d] != n || self->strides[d] != n)) dense = 0;
    n *= out->sizes[d];
  }
  if (n == 0) return KGB_OK;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "poisson", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_int rank = out->rank;
  const cl_ulong key = mix64(static_cast<uint64_t>(seed));
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, out);
  err |= clSetKernelArg(k, 4, sizeof(Geometry), &g);
  err |= clSetKernelArg(k, 5, sizeof(cl_int), &rank);
  err |= clSetKernelArg(k, 6, sizeof(cl_long), &n);
  err |= clSetKernelArg(k, 7, sizeof(cl_int), &dense);
  err |= clSetKernelArg(k, 8, sizeof(cl_ulong), &key);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
