// aten/add in OpenCL: out = self + alpha * other with broadcasting.
// The host right-aligns the three views into one index space (stride 0 on
// broadcast dimensions), drops size-1 dimensions and merges dimensions that
// are contiguous in all three tensors, so the usual cases become rank 1 or 2.
// One work-item per output element; the program is built once per dtype
// (-DKGB_DT=<kgb_dtype>), f16/bf16 are ushort data converted in the kernel.
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

#if KGB_DT == 6
typedef float S; typedef float A;
#define COMBINE(x, y, al) ((x) + (al) * (y))
#elif KGB_DT == 7
typedef double S; typedef double A;
#define COMBINE(x, y, al) ((x) + (al) * (y))
#elif KGB_DT == 4
typedef ushort S; typedef float A;
#define COMBINE(x, y, al) kgb_float_to_f16(kgb_f16_to_float(x) + (al) * kgb_f16_to_float(y))
#elif KGB_DT == 5
typedef ushort S; typedef float A;
#define COMBINE(x, y, al) kgb_float_to_bf16(kgb_bf16_to_float(x) + (al) * kgb_bf16_to_float(y))
#elif KGB_DT == 2
typedef int S; typedef int A;
#define COMBINE(x, y, al) ((int)((uint)(x) + (uint)(al) * (uint)(y)))
#elif KGB_DT == 3
typedef long S; typedef long A;
#define COMBINE(x, y, al) ((long)((ulong)(x) + (ulong)(al) * (ulong)(y)))
#endif

typedef struct { long size[8]; long so[8]; long sa[8]; long sb[8]; } Geometry;

__kernel void add_nd(__global S* o, long o_off, __global const S* a, long a_off, __global const S* b, long b_off,
                     Geometry g, int rank, long n, A alpha) {
  long i = get_global_id(0);
  if (i >= n) return;
  long io = o_off, ia = a_off, ib = b_off, r = i;
  for (int d = rank - 1; d > 0; --d) {
    long q = r / g.size[d], k = r - q * g.size[d];
    r = q;
    io += k * g.so[d]; ia += k * g.sa[d]; ib += k * g.sb[d];
  }
  io += r * g.so[0]; ia += r * g.sa[0]; ib += r * g.sb[0];
  o[io] = COMBINE(a[ia], b[ib], alpha);
}
)CLC";

struct Geometry {
  cl_long size[8], so[8], sa[8], sb[8];
};

// Right-aligned broadcast of self and other onto out, compacted.
bool build_geometry(const kgb_tensor* out, const kgb_tensor* self, const kgb_tensor* other, Geometry& g, int& rank) {
  const int r = out->rank;
  if (self->rank > r || other->rank > r) return false;
  cl_long size[8], so[8], sa[8], sb[8];
  for (int d = 0; d < r; ++d) {
    size[d] = out->sizes[d];
    so[d] = out->strides[d];
    sa[d] = sb[d] = 0;
    int ds = d - (r - self->rank), dt = d - (r - other->rank);
    if (ds >= 0) {
      if (self->sizes[ds] != size[d] && self->sizes[ds] != 1) return false;
      sa[d] = self->sizes[ds] == 1 ? 0 : self->strides[ds];
    }
    if (dt >= 0) {
      if (other->sizes[dt] != size[d] && other->sizes[dt] != 1) return false;
      sb[d] = other->sizes[dt] == 1 ? 0 : other->strides[dt];
    }
  }
  // Drop size-1 dimensions, then merge d into d-1 where all three allow it.
  rank = 0;
  for (int d = 0; d < r; ++d) {
    if (size[d] == 1) continue;
    if (rank > 0) {
      int p = rank - 1;
      if (g.so[p] == so[d] * size[d] && g.sa[p] == sa[d] * size[d] && g.sb[p] == sb[d] * size[d]) {
        g.size[p] *= size[d];
        g.so[p] = so[d];
        g.sa[p] = sa[d];
        g.sb[p] = sb[d];
        continue;
      }
    }
    g.size[rank] = size[d];
    g.so[rank] = so[d];
    g.sa[rank] = sa[d];
    g.sb[rank] = sb[d];
    ++rank;
  }
  if (rank == 0) {
    g.size[0] = 1;
    g.so[0] = g.sa[0] = g.sb[0] = 0;
    rank = 1;
  }
  for (int d = rank; d < 8; ++d) g.size[d] = 1, g.so[d] = g.sa[d] = g.sb[d] = 0;
  return true;
}

const char* build_options(int32_t dtype) {
  switch (dtype) {
    case KGB_I32: return "-cl-std=CL1.2 -DKGB_DT=2";
    case KGB_I64: return "-cl-std=CL1.2 -DKGB_DT=3";
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    case KGB_F64: return "-cl-std=CL1.2 -DKGB_DT=7";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_aten_add(const kgb_tensor* self, const kgb_tensor* other, kgb_scalar alpha_scalar, kgb_tensor* out,
                            kgb_stream stream) {
  // alpha is an ATen Scalar: an integer (KGB_I64) or a double (KGB_F64).
  const double alpha = alpha_scalar.dtype == KGB_F64 ? alpha_scalar.v.f : static_cast<double>(alpha_scalar.v.i);
  if (self->dtype != out->dtype || other->dtype != out->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Geometry g{};
  int rank = 0;
  if (!build_geometry(out, self, other, g, rank)) return KGB_ERR_INVALID;
  const cl_long n = kgb_numel(out);
  if (n == 0) return KGB_OK;

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "add_nd", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, other);
  err |= clSetKernelArg(k, 6, sizeof g, &g);
  err |= clSetKernelArg(k, 7, sizeof rank, &rank);
  err |= clSetKernelArg(k, 8, sizeof n, &n);
  switch (out->dtype) {
    case KGB_F64: {
      cl_double a = alpha;
      err |= clSetKernelArg(k, 9, sizeof a, &a);
      break;
    }
    case KGB_I32: {
      cl_int a = static_cast<cl_int>(alpha);
      err |= clSetKernelArg(k, 9, sizeof a, &a);
      break;
    }
    case KGB_I64: {
      cl_long a = static_cast<cl_long>(alpha);
      err |= clSetKernelArg(k, 9, sizeof a, &a);
      break;
    }
    default: {
      cl_float a = static_cast<cl_float>(alpha);
      err |= clSetKernelArg(k, 9, sizeof a, &a);
    }
  }
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
