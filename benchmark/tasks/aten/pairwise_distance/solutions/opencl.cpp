// aten/pairwise_distance in OpenCL: out = || x1 - x2 + eps ||_p over the last
// dimension of the broadcast shape.
//
// GPUs, rows of 32 entries or more: work-groups of 8 rows x 32 lanes; the
// lanes stride along their row (neighbouring work-items read neighbouring
// addresses) and meet in local memory in a fixed tree order (deterministic).
// Shorter rows, and CPU devices: one work-item per row. The leading dimensions (broadcast:
// stride 0) are merged on the host where x1, x2 and out allow it.
// Each entry d = round(round(x1 - x2) + eps) is rounded to the dtype at both
// steps as ATen's separate tensor ops are; the norm accumulates in float
// (double for f64, only where the device has cl_khr_fp64) and is rounded once.
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
#define ROUND(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef float C;
#define LOAD(v) kgb_f16_to_float(v)
#define ROUND(v) kgb_f16_to_float(kgb_float_to_f16(v))
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_DT == 5
typedef ushort S; typedef float C;
#define LOAD(v) kgb_bf16_to_float(v)
#define ROUND(v) kgb_bf16_to_float(kgb_float_to_bf16(v))
#define STORE(v) kgb_float_to_bf16(v)
#else
typedef float S; typedef float C;
#define LOAD(v) (v)
#define ROUND(v) (v)
#define STORE(v) (v)
#endif
#define COUNT 0
#define L1 1
#define L2 2
#define LMAX 3
#define LPOW 4
#define LANES 32
#define ROWS 8

typedef struct { long size[8]; long s1[8]; long s2[8]; long so[8]; } Rows;

void offsets(const Rows* g, int nd, long r, long* a, long* b, long* o) {
  long x = 0, y = 0, z = 0;
  for (int d = nd - 1; d >= 0; --d) {
    long q = r / g->size[d], i = r - q * g->size[d];
    r = q;
    x += i * g->s1[d];
    y += i * g->s2[d];
    z += i * g->so[d];
  }
  *a = x;
  *b = y;
  *o = z;
}

C term(int norm, C d, C p) {
  C a = fabs(d);
  if (norm == COUNT) return d != (C)0 ? (C)1 : (C)0; /* NaN != 0 counts */
  if (norm == L2) return a * a;
  if (norm == LPOW) return pow(a, p);
  return a;
}
C combine(int norm, C acc, C t) {
  if (norm == LMAX) return (t > acc || isnan(t)) ? t : acc; /* NaN sticks */
  return acc + t;
}
C finish(int norm, C acc, C p) {
  if (norm == L2) return sqrt(acc);
  if (norm == LPOW) return pow(acc, (C)1 / p);
  return acc;
}
C entry(int norm, S a, S b, C eps, C p) { return term(norm, ROUND(ROUND(LOAD(a) - LOAD(b)) + eps), p); }

__kernel __attribute__((reqd_work_group_size(LANES, ROWS, 1)))
void rows_group(__global const S* x1, long o1, __global const S* x2, long o2, __global S* out, long oo, Rows g, int nd,
                long rows, long D, long k1, long k2, int norm, C p, C eps) {
  __local C part[ROWS][LANES];
  int lane = get_local_id(0), ly = get_local_id(1);
  long r = get_group_id(0) * (long)ROWS + ly;
  C acc = 0;
  long a = 0, b = 0, o = 0;
  if (r < rows) {
    offsets(&g, nd, r, &a, &b, &o);
    for (long k = lane; k < D; k += LANES) acc = combine(norm, acc, entry(norm, x1[o1 + a + k * k1], x2[o2 + b + k * k2], eps, p));
  }
  part[ly][lane] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = LANES / 2; w > 0; w >>= 1) {
    if (lane < w) part[ly][lane] = combine(norm, part[ly][lane], part[ly][lane + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0 && r < rows) out[oo + o] = STORE(finish(norm, part[ly][0], p));
}

__kernel void rows_item(__global const S* x1, long o1, __global const S* x2, long o2, __global S* out, long oo, Rows g,
                        int nd, long rows, long D, long k1, long k2, int norm, C p, C eps) {
  long r = get_global_id(0);
  if (r >= rows) return;
  long a, b, o;
  offsets(&g, nd, r, &a, &b, &o);
  C acc = 0;
  for (long k = 0; k < D; ++k) acc = combine(norm, acc, entry(norm, x1[o1 + a + k * k1], x2[o2 + b + k * k2], eps, p));
  out[oo + o] = STORE(finish(norm, acc, p));
}
)CLC";

struct Rows {
  cl_long size[8], s1[8], s2[8], so[8];
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

cl_int set_real(cl_kernel k, cl_uint index, bool f64, double v) {
  if (f64) return clSetKernelArg(k, index, sizeof(cl_double), &v);
  const cl_float f = static_cast<cl_float>(v);
  return clSetKernelArg(k, index, sizeof f, &f);
}

}  // namespace

extern "C" int kgb_aten_pairwise_distance(const kgb_tensor* x1, const kgb_tensor* x2, double p, double eps,
                                          int keepdim, kgb_tensor* out, kgb_stream stream) {
  if (x1->dtype != x2->dtype || out->dtype != x1->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(x1->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const bool f64 = x1->dtype == KGB_F64;
  if (f64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  if (!(p >= 0)) return KGB_ERR_INVALID;
  const int rank = x1->rank > x2->rank ? x1->rank : x2->rank;
  if (rank < 1 || out->rank != (keepdim ? rank : rank - 1)) return KGB_ERR_INVALID;
  int64_t size[KGB_MAX_RANK], s1[KGB_MAX_RANK], s2[KGB_MAX_RANK];
  for (int d = 0; d < rank; ++d) {  // broadcast, right-aligned; stride 0 where broadcast
    const int i1 = d - (rank - x1->rank), i2 = d - (rank - x2->rank);
    const int64_t n1 = i1 >= 0 ? x1->sizes[i1] : 1, n2 = i2 >= 0 ? x2->sizes[i2] : 1;
    if (n1 != n2 && n1 != 1 && n2 != 1) return KGB_ERR_INVALID;
    size[d] = n1 == 1 ? n2 : n1;
    s1[d] = (i1 >= 0 && n1 != 1) ? x1->strides[i1] : 0;
    s2[d] = (i2 >= 0 && n2 != 1) ? x2->strides[i2] : 0;
  }
  Rows g{};
  cl_int nd = 0;
  cl_long rows = 1, D = size[rank - 1], k1 = s1[rank - 1], k2 = s2[rank - 1];
  for (int d = 0; d + 1 < rank; ++d) {
    if (out->sizes[d] != size[d]) return KGB_ERR_INVALID;
    rows *= size[d];
    if (size[d] == 1) continue;
    const cl_long so = out->strides[d];
    const int m = nd - 1;
    if (m >= 0 && g.s1[m] == s1[d] * size[d] && g.s2[m] == s2[d] * size[d] && g.so[m] == so * size[d]) {
      g.size[m] *= size[d];
      g.s1[m] = s1[d];
      g.s2[m] = s2[d];
      g.so[m] = so;
      continue;
    }
    g.size[nd] = size[d];
    g.s1[nd] = s1[d];
    g.s2[nd] = s2[d];
    g.so[nd] = so;
    ++nd;
  }
  if (keepdim && out->sizes[rank - 1] != 1) return KGB_ERR_INVALID;
  if (rows == 0) return KGB_OK;
  if (D == 0 && std::isinf(p)) return KGB_ERR_INVALID;
  const cl_int norm = p == 0 ? 0 : std::isinf(p) ? 3 : p == 1 ? 1 : p == 2 ? 2 : 4;
  // CPU devices (PoCL): a work-item per row, walked sequentially by one core.
  const bool group = D >= 32 && kgb_cl_device_type(stream) != CL_DEVICE_TYPE_CPU;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, group ? "rows_group" : "rows_item", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, x1);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, x2);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, out);
  err |= clSetKernelArg(k, 6, sizeof g, &g);
  err |= clSetKernelArg(k, 7, sizeof nd, &nd);
  err |= clSetKernelArg(k, 8, sizeof rows, &rows);
  err |= clSetKernelArg(k, 9, sizeof D, &D);
  err |= clSetKernelArg(k, 10, sizeof k1, &k1);
  err |= clSetKernelArg(k, 11, sizeof k2, &k2);
  err |= clSetKernelArg(k, 12, sizeof norm, &norm);
  err |= set_real(k, 13, f64, p);
  err |= set_real(k, 14, f64, eps);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  if (group) {
    // Work-group g covers rows 8g .. 8g+7: dimension 0 counts groups of 32 lanes, dimension 1 the 8 rows.
    const size_t local[2] = {32, 8};
    const size_t global[2] = {(static_cast<size_t>(rows) + 7) / 8 * 32, 8};
    return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }
  const size_t local = 256, global = (static_cast<size_t>(rows) + 255) / 256 * 256;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
