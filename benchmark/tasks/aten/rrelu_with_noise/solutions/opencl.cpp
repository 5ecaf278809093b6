// aten/rrelu_with_noise in OpenCL.
// training: where x <= 0, slope r = lower + u * (upper - lower) with u a
// 24-bit (53-bit for f64) uniform in (0, 1] from splitmix64 keyed by (seed,
// logical row-major index), clamped to upper and rounded to T; noise = r,
// out = x * r in the compute type (float, double for f64) rounded once to T.
// Elsewhere noise = 1, out = x. eval: out = x > 0 ? x : x * slope, noise
// untouched. One work-item per element; when the tensors it writes and
// reads are row-major it skips the index unravelling. f64 only where the
// device has cl_khr_fp64 (the scalars go in as float otherwise).
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
typedef double S;
typedef double C;
#define LOAD(v) (v)
#define STORE(v) (v)
#define UNIFORM(h) ((double)(((h) >> 11) + 1) * 0x1.0p-53)
#else
typedef float C;
#define UNIFORM(h) ((float)(((h) >> 40) + 1) * 0x1.0p-24f)
#if KGB_DT == 6
typedef float S;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#else
typedef ushort S;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#endif
#endif

ulong mix64(ulong x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}

typedef struct { long size[8]; long xs[8]; long ns[8]; long os[8]; } Geometry;

__kernel void rrelu(__global const S* x, long x_off, __global S* noise, long n_off, __global S* out, long o_off,
                    Geometry g, int rank, long n, int dense, ulong key, C lower, C range, C upper, C slope, int training) {
  long i = get_global_id(0);
  if (i >= n) return;
  long xo = x_off + i, no = n_off + i, oo = o_off + i;
  if (!dense) {
    xo = x_off, no = n_off, oo = o_off;
    long r = i;
    for (int d = rank - 1; d >= 0; --d) {
      long q = r / g.size[d], c = r - q * g.size[d];
      xo += c * g.xs[d];
      no += c * g.ns[d];
      oo += c * g.os[d];
      r = q;
    }
  }
  S xs = x[xo];
  C v = LOAD(xs);
  if (!training) {
    out[oo] = v > (C)0 ? xs : STORE(v * slope);
    return;
  }
  if (v <= (C)0) {
    C r = lower + UNIFORM(mix64(key ^ mix64((ulong)i))) * range;
    r = r > upper ? upper : r;
    S rs = STORE(r);
    noise[no] = rs;
    out[oo] = STORE(v * LOAD(rs));
  } else {
    noise[no] = STORE((C)1);
    out[oo] = xs;
  }
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
  cl_long size[8] = {}, xs[8] = {}, ns[8] = {}, os[8] = {};
};

uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

bool row_major(const kgb_tensor* t) {
  int64_t expect = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

double scalar_value(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }

// lower, range, upper, slope in the kernel's compute type.
template <typename C>
cl_int set_bounds(cl_kernel k, double lower, double upper) {
  const C values[4] = {static_cast<C>(lower), static_cast<C>(upper - lower), static_cast<C>(upper),
                       static_cast<C>((lower + upper) / 2)};
  cl_int err = CL_SUCCESS;
  for (cl_uint a = 0; a < 4; ++a) err |= clSetKernelArg(k, 11 + a, sizeof(C), &values[a]);
  return err;
}

}  // namespace

extern "C" int kgb_aten_rrelu_with_noise(const kgb_tensor* self, kgb_tensor* noise, kgb_scalar lower, kgb_scalar upper,
                                         int training, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || noise->dtype != out->dtype || self->rank != out->rank || noise->rank != out->rank)
    return KGB_ERR_INVALID;
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Geometry g;
  cl_long n = 1;
  for (int d = 0; d < out->rank; ++d) {
    g.size[d] = out->sizes[d];
    g.xs[d] = self->strides[d];
    g.ns[d] = noise->strides[d];
    g.os[d] = out->strides[d];
    n *= out->sizes[d];
  }
  if (n == 0) return KGB_OK;
  // eval never touches noise, so its layout does not matter there.
  const cl_int dense = row_major(self) && row_major(out) && (!training || row_major(noise));
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "rrelu", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_int rank = out->rank, train = training != 0;
  const cl_ulong key = mix64(static_cast<uint64_t>(seed));
  const double lo = scalar_value(lower), hi = scalar_value(upper);
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, noise);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, out);
  err |= clSetKernelArg(k, 6, sizeof(Geometry), &g);
  err |= clSetKernelArg(k, 7, sizeof(cl_int), &rank);
  err |= clSetKernelArg(k, 8, sizeof(cl_long), &n);
  err |= clSetKernelArg(k, 9, sizeof(cl_int), &dense);
  err |= clSetKernelArg(k, 10, sizeof(cl_ulong), &key);
  err |= out->dtype == KGB_F64 ? set_bounds<cl_double>(k, lo, hi) : set_bounds<cl_float>(k, lo, hi);
  err |= clSetKernelArg(k, 15, sizeof(cl_int), &train);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
