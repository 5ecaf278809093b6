// aten/affine_grid_generator in OpenCL. One work-item per grid point
// (n, [d,] h, w) in a grid-stride loop writes the point's K = 2 or 3
// coordinates theta[n,k,0]*x(w) + theta[n,k,1]*x(h) [+ theta[n,k,2]*x(d)]
// + theta[n,k,K]. Base coordinates are computed from the index (0 for
// S = 1), rounded to T as ATen's base grid is, in float (double for f64,
// built only where the device has cl_khr_fp64); 16-bit values convert with
// the KGB_CL_HALF_SOURCE helpers. On dense 2-D outputs a point's (x, y) pair
// is one vstore2; other layouts store through out's strides. The program is
// built per dtype (-DKGB_DT) and coordinate count (-DKGB_K).
#include <stdio.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 256;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT  /* defaults for an offline syntax check; the launcher always sets them */
#define KGB_DT 6
#define KGB_K 2
#endif
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double S; typedef double C; typedef double2 S2;
#define LOAD(v) (v)
#define STORE(v) (v)
#define ROUND(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef float C; typedef ushort2 S2;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#define ROUND(v) kgb_f16_to_float(kgb_float_to_f16(v))
#elif KGB_DT == 5
typedef ushort S; typedef float C; typedef ushort2 S2;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#define ROUND(v) kgb_bf16_to_float(kgb_float_to_bf16(v))
#else
typedef float S; typedef float C; typedef float2 S2;
#define LOAD(v) (v)
#define STORE(v) (v)
#define ROUND(v) (v)
#endif

typedef struct {
  long batch, depth, height, width, points;
  long ts0, ts1, ts2;       // theta strides
  long on, od, oh, ow, ok;  // out strides (od = 0 for 2-D)
  int align, dense;
} Geometry;

// x(i, S) rounded to T: linspace(-1, 1, S), scaled by (S-1)/S without align_corners; 0 for S = 1.
C coordinate(long i, long size, int align) {
  if (size <= 1) return (C)0;
  const C v = align ? (C)-1 + (C)2 * (C)i / (C)(size - 1) : ((C)2 * (C)i + (C)1) / (C)size - (C)1;
  return ROUND(v);
}

__kernel void affine_grid(__global const S* theta, long theta_off, __global S* out, long out_off, Geometry g) {
  for (long p = get_global_id(0); p < g.points; p += get_global_size(0)) {
    const long w = p % g.width, rest = p / g.width;
    const long h = rest % g.height, rest2 = rest / g.height;
    const long d = rest2 % g.depth, n = rest2 / g.depth;
    const C x = coordinate(w, g.width, g.align), y = coordinate(h, g.height, g.align);
#if KGB_K == 3
    const C z = coordinate(d, g.depth, g.align);
#endif
    C v[KGB_K];
    for (int k = 0; k < KGB_K; ++k) {
      const long row = theta_off + n * g.ts0 + k * g.ts1;
      C s = LOAD(theta[row + KGB_K * g.ts2]);
      s += LOAD(theta[row]) * x + LOAD(theta[row + g.ts2]) * y;
#if KGB_K == 3
      s += LOAD(theta[row + 2 * g.ts2]) * z;
#endif
      v[k] = s;
    }
    const long dst = out_off + n * g.on + d * g.od + h * g.oh + w * g.ow;
#if KGB_K == 2
    if (g.dense) {
      vstore2((S2)(STORE(v[0]), STORE(v[1])), 0, out + dst);
      continue;
    }
#endif
    for (int k = 0; k < KGB_K; ++k) out[dst + k * g.ok] = STORE(v[k]);
  }
}
)CLC";

struct Geometry {
  cl_long batch, depth, height, width, points;
  cl_long ts0, ts1, ts2;
  cl_long on, od, oh, ow, ok;
  cl_int align, dense;
};
static_assert(sizeof(Geometry) == 13 * 8 + 2 * 4, "Geometry must match the OpenCL C struct");

}  // namespace

extern "C" int kgb_aten_affine_grid_generator(const kgb_tensor* theta, kgb_int_list size, int align_corners,
                                              kgb_tensor* out, kgb_stream stream) {
  switch (theta->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (size.count != 4 && size.count != 5) return KGB_ERR_INVALID;
  const int spatial = static_cast<int>(size.count) - 2;
  for (int64_t i = 0; i < size.count; ++i)
    if (size.values[i] < 0) return KGB_ERR_INVALID;
  Geometry g{};
  g.batch = size.values[0], g.depth = spatial == 3 ? size.values[2] : 1;
  g.height = size.values[size.count - 2], g.width = size.values[size.count - 1];
  if (theta->rank != 3 || theta->sizes[0] != g.batch || theta->sizes[1] != spatial || theta->sizes[2] != spatial + 1)
    return KGB_ERR_INVALID;
  if (out->dtype != theta->dtype || out->rank != spatial + 2 || out->sizes[0] != g.batch || out->sizes[spatial + 1] != spatial)
    return KGB_ERR_INVALID;
  for (int d = 1; d <= spatial; ++d)
    if (out->sizes[d] != size.values[d + 1]) return KGB_ERR_INVALID;
  g.points = g.batch * g.depth * g.height * g.width;
  if (g.points == 0) return KGB_OK;
  if (theta->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  g.ts0 = theta->strides[0], g.ts1 = theta->strides[1], g.ts2 = theta->strides[2];
  const int r = out->rank;
  g.on = out->strides[0], g.od = spatial == 3 ? out->strides[1] : 0, g.oh = out->strides[r - 3];
  g.ow = out->strides[r - 2], g.ok = out->strides[r - 1];
  g.align = align_corners != 0;
  g.dense = spatial == 2 && g.ok == 1 && g.ow == 2;  // vstore2 needs element alignment only

  cl_mem theta_buffer = nullptr, out_buffer = nullptr;
  cl_long theta_off = 0, out_off = 0;
  if (kgb_cl_tensor_buffer(stream, theta, &theta_buffer, &theta_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (kgb_cl_tensor_buffer(stream, out, &out_buffer, &out_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  char options[64];
  snprintf(options, sizeof options, "-cl-std=CL1.2 -DKGB_DT=%d -DKGB_K=%d", theta->dtype, spatial);
  cl_kernel kern = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "affine_grid", &kern) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(kern, 0, sizeof theta_buffer, &theta_buffer);
  err |= clSetKernelArg(kern, 1, sizeof theta_off, &theta_off);
  err |= clSetKernelArg(kern, 2, sizeof out_buffer, &out_buffer);
  err |= clSetKernelArg(kern, 3, sizeof out_off, &out_off);
  err |= clSetKernelArg(kern, 4, sizeof g, &g);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_long groups = (g.points + static_cast<cl_long>(kGroup) - 1) / static_cast<cl_long>(kGroup);
  const size_t global = static_cast<size_t>(groups < 8192 ? groups : 8192) * kGroup, local = kGroup;
  return kgb_cl_enqueue(stream, kern, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
