// aten/sort in OpenCL: values and indices of every slice along `dim`.
// Every element becomes a 64-bit key whose unsigned order is the wanted order
// (sign-flipped IEEE bits, -0.0 folded onto +0.0, NaN above +inf, all keys
// inverted for descending), paired with its index; (key, index) pairs compare
// lexicographically, so the order is total and the result deterministic.
// - sort_local: one work-group per slice runs a bitonic sort of the slice
//   (padded to a power of two) in local memory, then gathers the values;
// - sort_rank: slices too long for local memory; every work-item counts the
//   pairs below its own and writes itself to that position (quadratic, but
//   only for long slices on devices with little local memory).
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

ulong float_key(float x) {
  if (isnan(x)) return 0xFFFFFFFFFFFFFFFFUL;
  uint u = x == 0.0f ? 0u : as_uint(x);
  return (u & 0x80000000u) ? (ulong)(~u) : (ulong)(u | 0x80000000u);
}

#if KGB_DT == 6
typedef float S;
#define KEY(v) float_key(v)
#elif KGB_DT == 7
typedef double S;
ulong double_key(double x) {
  if (isnan(x)) return 0xFFFFFFFFFFFFFFFFUL;
  ulong u = x == 0.0 ? 0UL : as_ulong(x);
  return (u & 0x8000000000000000UL) ? ~u : (u | 0x8000000000000000UL);
}
#define KEY(v) double_key(v)
#elif KGB_DT == 4
typedef ushort S;
#define KEY(v) float_key(kgb_f16_to_float(v))
#elif KGB_DT == 5
typedef ushort S;
#define KEY(v) float_key(kgb_bf16_to_float(v))
#elif KGB_DT == 2
typedef int S;
#define KEY(v) ((ulong)((uint)(v) ^ 0x80000000u))
#elif KGB_DT == 3
typedef long S;
#define KEY(v) ((ulong)(v) ^ 0x8000000000000000UL)
#endif

// The other dimensions, row-major: sizes and strides in self, values, indices.
typedef struct { long size[8]; long ss[8]; long sv[8]; long si[8]; } Slices;

void slice_base(const Slices* g, int rank, long s, long* a, long* v, long* x) {
  long oa = 0, ov = 0, ox = 0;
  for (int k = rank - 1; k >= 0; --k) {
    long q = s / g->size[k], i = s - q * g->size[k];
    s = q;
    oa += i * g->ss[k];
    ov += i * g->sv[k];
    ox += i * g->si[k];
  }
  *a = oa;
  *v = ov;
  *x = ox;
}

ulong ordered_key(S v, int descending) {
  ulong k = KEY(v);
  return descending ? ~k : k;
}

__kernel void sort_local(__global S* values, long v_off, __global long* indices, long x_off, __global const S* self,
                         long s_off, Slices g, int rank, long len, long self_step, long values_step,
                         long indices_step, uint padded, int descending, __local ulong* keys, __local uint* pos) {
  long a, v, x;
  slice_base(&g, rank, get_group_id(0), &a, &v, &x);
  __global const S* src = self + s_off + a;
  uint lid = get_local_id(0), group = get_local_size(0);
  for (uint t = lid; t < padded; t += group) {
    keys[t] = t < len ? ordered_key(src[t * self_step], descending) : 0xFFFFFFFFFFFFFFFFUL;
    pos[t] = t;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 2; k <= padded; k <<= 1) {
    for (uint j = k >> 1; j > 0; j >>= 1) {
      for (uint t = lid; t < padded / 2; t += group) {
        uint i = (t / j) * 2 * j + (t % j), p = i + j;
        ulong ki = keys[i], kp = keys[p];
        uint ii = pos[i], ip = pos[p];
        bool greater = ki > kp || (ki == kp && ii > ip);
        if (greater == ((i & k) == 0)) {
          keys[i] = kp; keys[p] = ki;
          pos[i] = ip; pos[p] = ii;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  for (uint t = lid; t < len; t += group) {
    uint from = pos[t];
    values[v_off + v + t * values_step] = src[from * self_step];
    indices[x_off + x + t * indices_step] = (long)from;
  }
}

// Work-item w = slice * len + element.
__kernel void sort_rank(__global S* values, long v_off, __global long* indices, long x_off, __global const S* self,
                        long s_off, Slices g, int rank, long len, long self_step, long values_step, long indices_step,
                        long total, int descending) {
  long w = get_global_id(0);
  if (w >= total) return;
  long s = w / len, e = w - s * len;
  long a, v, x;
  slice_base(&g, rank, s, &a, &v, &x);
  __global const S* src = self + s_off + a;
  ulong mine = ordered_key(src[e * self_step], descending);
  long below = 0;
  for (long o = 0; o < len; ++o) {
    ulong other = ordered_key(src[o * self_step], descending);
    below += (other < mine || (other == mine && o < e)) ? 1 : 0;
  }
  values[v_off + v + below * values_step] = src[e * self_step];
  indices[x_off + x + below * indices_step] = e;
}
)CLC";

struct Slices {
  cl_long size[8], ss[8], sv[8], si[8];
};

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

extern "C" int kgb_aten_sort(const kgb_tensor* self, int64_t dim, int descending, kgb_tensor* values,
                             kgb_tensor* indices, kgb_stream stream) {
  if (values->dtype != self->dtype || indices->dtype != KGB_I64) return KGB_ERR_INVALID;
  const char* options = build_options(self->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const int rank = self->rank;
  if (values->rank != rank || indices->rank != rank) return KGB_ERR_INVALID;
  const int64_t nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  Slices g{};
  int kept = 0;
  cl_long slices = 1;
  for (int d = 0; d < rank; ++d) {
    if (self->sizes[d] != values->sizes[d] || self->sizes[d] != indices->sizes[d]) return KGB_ERR_INVALID;
    if (d == dim) continue;
    const cl_long size = self->sizes[d];
    slices *= size;
    if (size == 1) continue;
    if (kept > 0 && g.ss[kept - 1] == self->strides[d] * size && g.sv[kept - 1] == values->strides[d] * size &&
        g.si[kept - 1] == indices->strides[d] * size) {
      g.size[kept - 1] *= size;
      g.ss[kept - 1] = self->strides[d];
      g.sv[kept - 1] = values->strides[d];
      g.si[kept - 1] = indices->strides[d];
      continue;
    }
    g.size[kept] = size;
    g.ss[kept] = self->strides[d];
    g.sv[kept] = values->strides[d];
    g.si[kept] = indices->strides[d];
    ++kept;
  }
  const cl_long len = rank == 0 ? 1 : self->sizes[dim];
  if (slices == 0 || len == 0) return KGB_OK;
  const cl_long self_step = rank == 0 ? 0 : self->strides[dim];
  const cl_long values_step = rank == 0 ? 0 : values->strides[dim];
  const cl_long indices_step = rank == 0 ? 0 : indices->strides[dim];
  const cl_int desc = descending ? 1 : 0;

  cl_uint padded = 2;
  while (static_cast<cl_long>(padded) < len && padded < (1u << 30)) padded <<= 1;
  const cl_ulong local_bytes = static_cast<cl_ulong>(padded) * (sizeof(cl_ulong) + sizeof(cl_uint));
  const bool fits = static_cast<cl_long>(padded) >= len && local_bytes + 1024 <= kgb_cl_local_mem_size(stream);

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, fits ? "sort_local" : "sort_rank", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, values);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, indices);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, self);
  err |= clSetKernelArg(k, 6, sizeof g, &g);
  err |= clSetKernelArg(k, 7, sizeof kept, &kept);
  err |= clSetKernelArg(k, 8, sizeof len, &len);
  err |= clSetKernelArg(k, 9, sizeof self_step, &self_step);
  err |= clSetKernelArg(k, 10, sizeof values_step, &values_step);
  err |= clSetKernelArg(k, 11, sizeof indices_step, &indices_step);
  if (fits) {
    err |= clSetKernelArg(k, 12, sizeof padded, &padded);
    err |= clSetKernelArg(k, 13, sizeof desc, &desc);
    err |= clSetKernelArg(k, 14, padded * sizeof(cl_ulong), nullptr);
    err |= clSetKernelArg(k, 15, padded * sizeof(cl_uint), nullptr);
    if (err != CL_SUCCESS) return KGB_ERR_INVALID;
    // One group size for every slice length: a CPU device compiles a kernel
    // once per group size; the loops above leave the surplus work-items idle.
    size_t group = 256;
    const size_t limit = kgb_cl_max_work_group_size(stream, k);
    while (group > limit) group /= 2;
    const size_t global = static_cast<size_t>(slices) * group;
    return kgb_cl_enqueue(stream, k, 1, &global, &group) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }
  const cl_long total = slices * len;
  err |= clSetKernelArg(k, 12, sizeof total, &total);
  err |= clSetKernelArg(k, 13, sizeof desc, &desc);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(total) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
