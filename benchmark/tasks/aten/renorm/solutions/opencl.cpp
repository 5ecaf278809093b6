// aten/renorm in OpenCL: every slice self.select(dim, s) whose p-norm exceeds
// maxnorm is scaled by maxnorm / (norm + 1e-7).
//
// Steps, in order on the queue, with a per-call factor buffer:
//  1. norms: on GPUs, slices adjacent in memory (stride 1 along dim):
//     work-groups of 32 slices x 8 lanes along them, so neighbouring
//     work-items read neighbouring addresses; otherwise one work-group of 256
//     per slice. On CPU devices one work-item per slice.
//     Partial sums meet in local memory in a fixed tree order (deterministic);
//     the first work-item of a slice turns its norm into the factor (float,
//     double for f64), rounded to self's dtype as ATen keeps it.
//  2. scale: out = x * factor[slice], one work-item per element: in memory
//     order when self and out are row-major, otherwise through the strides.
// f16/bf16 are ushort data converted with the kgb_half.h helpers; f64 only
// where the device has cl_khr_fp64.
#include <stdint.h>

#include <cmath>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double S; typedef double C;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef float C;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_DT == 5
typedef ushort S; typedef float C;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#else
typedef float S; typedef float C;
#define LOAD(v) (v)
#define STORE(v) (v)
#endif
#define L1 0
#define L2 1
#define LMAX 2
#define LPOW 3
#define GROUP 256
#define TILE_X 32
#define TILE_Y 8

/* The non-dim dimensions, row-major: sizes and self / out strides. */
typedef struct { long size[8]; long xs[8]; long ys[8]; } Geometry;

void offsets(const Geometry* g, int nd, long k, long* xo, long* yo) {
  long a = 0, b = 0;
  for (int d = nd - 1; d >= 0; --d) {
    long q = k / g->size[d], r = k - q * g->size[d];
    k = q;
    a += r * g->xs[d];
    b += r * g->ys[d];
  }
  *xo = a;
  *yo = b;
}

C term(int norm, C a, C p) {
  a = fabs(a);
  if (norm == L2) return a * a;
  if (norm == LPOW) return pow(a, p);
  return a;
}
C combine(int norm, C acc, C t) {
  if (norm == LMAX) return (t > acc || isnan(t)) ? t : acc; /* NaN sticks */
  return acc + t;
}
C factor_of(int norm, C acc, C p, C maxnorm) {
  C n = acc;
  if (norm == L2) n = sqrt(acc);
  if (norm == LPOW) n = pow(acc, (C)1 / p);
  C f = n > maxnorm ? maxnorm / (n + (C)1e-7) : (C)1;
  return LOAD(STORE(f)); /* rounded to self's dtype */
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void norms_per_slice(__global const S* x, long x_off, Geometry g, int nd, long slices, long per, long x_dim,
                     int norm, C p, C maxnorm, __global C* factor) {
  __local C part[GROUP];
  long s = get_group_id(0);
  int lid = get_local_id(0);
  C acc = 0;
  if (s < slices)
    for (long k = lid; k < per; k += GROUP) {
      long xo, yo;
      offsets(&g, nd, k, &xo, &yo);
      acc = combine(norm, acc, term(norm, LOAD(x[x_off + s * x_dim + xo]), p));
    }
  part[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = GROUP / 2; w > 0; w >>= 1) {
    if (lid < w) part[lid] = combine(norm, part[lid], part[lid + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0 && s < slices) factor[s] = factor_of(norm, part[0], p, maxnorm);
}

/* CPU devices: one work-item per slice walks it sequentially. */
__kernel void norms_items(__global const S* x, long x_off, Geometry g, int nd, long slices, long per, long x_dim,
                          int norm, C p, C maxnorm, __global C* factor) {
  long s = get_global_id(0);
  if (s >= slices) return;
  C acc = 0;
  for (long k = 0; k < per; ++k) {
    long xo, yo;
    offsets(&g, nd, k, &xo, &yo);
    acc = combine(norm, acc, term(norm, LOAD(x[x_off + s * x_dim + xo]), p));
  }
  factor[s] = factor_of(norm, acc, p, maxnorm);
}

__kernel __attribute__((reqd_work_group_size(TILE_X, TILE_Y, 1)))
void norms_adjacent(__global const S* x, long x_off, Geometry g, int nd, long slices, long per, int norm, C p,
                    C maxnorm, __global C* factor) {
  __local C part[TILE_Y][TILE_X];
  int tx = get_local_id(0), ty = get_local_id(1);
  long s = get_group_id(0) * (long)TILE_X + tx;
  C acc = 0;
  if (s < slices)
    for (long k = ty; k < per; k += TILE_Y) {
      long xo, yo;
      offsets(&g, nd, k, &xo, &yo);
      acc = combine(norm, acc, term(norm, LOAD(x[x_off + s + xo]), p));
    }
  part[ty][tx] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = TILE_Y / 2; w > 0; w >>= 1) {
    if (ty < w) part[ty][tx] = combine(norm, part[ty][tx], part[ty + w][tx]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (ty == 0 && s < slices) factor[s] = factor_of(norm, part[0][tx], p, maxnorm);
}

__kernel void scale_dense(__global const S* x, long x_off, __global S* y, long y_off, long total, long inner,
                          long slices, __global const C* factor) {
  long n = get_global_id(0);
  if (n >= total) return;
  y[y_off + n] = STORE(LOAD(x[x_off + n]) * factor[(n / inner) % slices]);
}

__kernel void scale_strided(__global const S* x, long x_off, __global S* y, long y_off, Geometry g, int nd,
                            long slices, long per, long x_dim, long y_dim, __global const C* factor) {
  long n = get_global_id(0);
  if (n >= slices * per) return;
  long s = n / per, k = n - s * per, xo, yo;
  offsets(&g, nd, k, &xo, &yo);
  y[y_off + s * y_dim + yo] = STORE(LOAD(x[x_off + s * x_dim + xo]) * factor[s]);
}
)CLC";

struct Geometry {
  cl_long size[8], xs[8], ys[8];
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

bool row_major(const kgb_tensor* t) {
  int64_t expect = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

double scalar_value(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }

// Sets a float argument in the kernel's compute type (double for f64).
cl_int set_real(cl_kernel k, cl_uint index, bool f64, double v) {
  if (f64) return clSetKernelArg(k, index, sizeof(cl_double), &v);
  const cl_float f = static_cast<cl_float>(v);
  return clSetKernelArg(k, index, sizeof f, &f);
}

size_t round_up(cl_long n, size_t group) { return (static_cast<size_t>(n) + group - 1) / group * group; }

}  // namespace

extern "C" int kgb_aten_renorm(const kgb_tensor* self, kgb_scalar p_arg, int64_t dim, kgb_scalar maxnorm_arg,
                               kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  const char* options = build_options(self->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const bool f64 = self->dtype == KGB_F64;
  if (f64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  if (p_arg.dtype == KGB_C128 || maxnorm_arg.dtype == KGB_C128) return KGB_ERR_INVALID;
  const double p = scalar_value(p_arg), maxnorm = scalar_value(maxnorm_arg);
  const int rank = self->rank;
  if (!(p > 0) || !(maxnorm >= 0) || rank < 2 || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  Geometry g{};
  cl_int nd = 0;
  cl_long slices = 1, per = 1, inner = 1, x_dim = 0, y_dim = 0;
  for (int d = 0; d < rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
    if (d == dim) {
      slices = self->sizes[d];
      x_dim = self->strides[d];
      y_dim = out->strides[d];
      continue;
    }
    if (d > dim) inner *= self->sizes[d];
    per *= self->sizes[d];
    g.size[nd] = self->sizes[d];
    g.xs[nd] = self->strides[d];
    g.ys[nd] = out->strides[d];
    ++nd;
  }
  if (slices == 0 || per == 0) return KGB_OK;
  const cl_int norm = std::isinf(p) ? 2 : p == 1 ? 0 : p == 2 ? 1 : 3;
  const size_t elem = f64 ? sizeof(cl_double) : sizeof(cl_float);

  cl_int err = CL_SUCCESS;
  cl_mem factor = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, elem * static_cast<size_t>(slices),
                                 nullptr, &err);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  int status = KGB_OK;
  // Step 1: the factor of every slice.
  {
    // CPU devices (PoCL): a work-item per slice once there are enough slices
    // for the cores; GPUs: the coalesced kernels.
    const bool items = kgb_cl_device_type(stream) == CL_DEVICE_TYPE_CPU && slices >= 64;
    const bool adjacent = !items && x_dim == 1 && slices >= 32;
    const char* name = items ? "norms_items" : adjacent ? "norms_adjacent" : "norms_per_slice";
    cl_kernel k = nullptr;
    if (kgb_cl_get_kernel(stream, kSource, options, name, &k) != CL_SUCCESS) {
      status = KGB_ERR_INVALID;
    } else {
      cl_uint a = 0;
      err = kgb_cl_set_tensor_arg(stream, k, a, self);
      a += 2;
      err |= clSetKernelArg(k, a++, sizeof g, &g);
      err |= clSetKernelArg(k, a++, sizeof nd, &nd);
      err |= clSetKernelArg(k, a++, sizeof slices, &slices);
      err |= clSetKernelArg(k, a++, sizeof per, &per);
      if (!adjacent) err |= clSetKernelArg(k, a++, sizeof x_dim, &x_dim);
      err |= clSetKernelArg(k, a++, sizeof norm, &norm);
      err |= set_real(k, a++, f64, p);
      err |= set_real(k, a++, f64, maxnorm);
      err |= clSetKernelArg(k, a++, sizeof factor, &factor);
      if (items) {
        const size_t local = 64, global = round_up(slices, local);
        if (err != CL_SUCCESS || kgb_cl_enqueue(stream, k, 1, &global, &local) != CL_SUCCESS) status = KGB_ERR_INVALID;
      } else if (adjacent) {
        const size_t local[2] = {32, 8};
        const size_t global[2] = {round_up(slices, 32), 8};
        if (err != CL_SUCCESS || kgb_cl_enqueue(stream, k, 2, global, local) != CL_SUCCESS) status = KGB_ERR_INVALID;
      } else {
        const size_t local = 256, global = static_cast<size_t>(slices) * 256;
        if (err != CL_SUCCESS || kgb_cl_enqueue(stream, k, 1, &global, &local) != CL_SUCCESS) status = KGB_ERR_INVALID;
      }
    }
  }
  // Step 2: out = x * factor[slice].
  if (status == KGB_OK) {
    const bool dense = row_major(self) && row_major(out);
    const cl_long total = slices * per;
    cl_kernel k = nullptr;
    if (kgb_cl_get_kernel(stream, kSource, options, dense ? "scale_dense" : "scale_strided", &k) != CL_SUCCESS) {
      status = KGB_ERR_INVALID;
    } else {
      cl_uint a = 0;
      err = kgb_cl_set_tensor_arg(stream, k, a, self);
      a += 2;
      err |= kgb_cl_set_tensor_arg(stream, k, a, out);
      a += 2;
      if (dense) {
        err |= clSetKernelArg(k, a++, sizeof total, &total);
        err |= clSetKernelArg(k, a++, sizeof inner, &inner);
        err |= clSetKernelArg(k, a++, sizeof slices, &slices);
      } else {
        err |= clSetKernelArg(k, a++, sizeof g, &g);
        err |= clSetKernelArg(k, a++, sizeof nd, &nd);
        err |= clSetKernelArg(k, a++, sizeof slices, &slices);
        err |= clSetKernelArg(k, a++, sizeof per, &per);
        err |= clSetKernelArg(k, a++, sizeof x_dim, &x_dim);
        err |= clSetKernelArg(k, a++, sizeof y_dim, &y_dim);
      }
      err |= clSetKernelArg(k, a++, sizeof factor, &factor);
      const size_t local = 256, global = round_up(total, local);
      if (err != CL_SUCCESS || kgb_cl_enqueue(stream, k, 1, &global, &local) != CL_SUCCESS) status = KGB_ERR_INVALID;
    }
  }
  // Released after the enqueued kernels that use it have run (OpenCL keeps it alive until then).
  clReleaseMemObject(factor);
  return status;
}
