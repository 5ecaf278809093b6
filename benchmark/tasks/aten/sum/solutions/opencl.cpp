// aten/sum over one dimension in OpenCL.
// The tensor is a set of 1-D slices along `dim`. The host merges the other
// dimensions where self and out allow it and picks one of two kernels:
// - sum_groups: one work-group of 256 per output element (slices contiguous
//   along dim, or few slices): the work-items stride over the slice and a tree
//   in local memory reduces their partial sums;
// - sum_items: one work-item per output element (dim is not the contiguous
//   dimension): neighbouring work-items read neighbouring addresses.
// Accumulation: double for f64, float for f32/f16/bf16, long for integers;
// the sum is rounded once to T. f16/bf16 are ushort data converted in the kernel.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 256;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define GROUP 256

#if KGB_DT == 6
typedef float S; typedef float ACC;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 7
typedef double S; typedef double ACC;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef float ACC;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_DT == 5
typedef ushort S; typedef float ACC;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#elif KGB_DT == 2
typedef int S; typedef long ACC;
#define LOAD(v) ((long)(v))
#define STORE(v) ((int)(v))
#elif KGB_DT == 3
typedef long S; typedef long ACC;
#define LOAD(v) (v)
#define STORE(v) (v)
#endif

// The kept dimensions, row-major: sizes and strides in self (a) and out (b).
typedef struct { long size[8]; long sa[8]; long sb[8]; } Slices;

void slice_base(const Slices* g, int rank, long s, long* a, long* b) {
  long oa = 0, ob = 0;
  for (int k = rank - 1; k >= 0; --k) {
    long q = s / g->size[k], i = s - q * g->size[k];
    s = q;
    oa += i * g->sa[k];
    ob += i * g->sb[k];
  }
  *a = oa;
  *b = ob;
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void sum_groups(__global S* out, long o_off, __global const S* in, long i_off, Slices g, int rank, long len,
                long step) {
  __local ACC partial[GROUP];
  long a, b;
  slice_base(&g, rank, get_group_id(0), &a, &b);
  int lid = get_local_id(0);
  ACC acc = 0;
  for (long k = lid; k < len; k += GROUP) acc += LOAD(in[i_off + a + k * step]);
  partial[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) partial[lid] += partial[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[o_off + b] = STORE(partial[0]);
}

__kernel void sum_items(__global S* out, long o_off, __global const S* in, long i_off, Slices g, int rank, long len,
                        long step, long slices) {
  long s = get_global_id(0);
  if (s >= slices) return;
  long a, b;
  slice_base(&g, rank, s, &a, &b);
  ACC acc = 0;
  for (long k = 0; k < len; ++k) acc += LOAD(in[i_off + a + k * step]);
  out[o_off + b] = STORE(acc);
}
)CLC";

struct Slices {
  cl_long size[8], sa[8], sb[8];
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

extern "C" int kgb_aten_sum(const kgb_tensor* self, int64_t dim, int keepdim, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(self->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const int rank = self->rank;
  const int64_t nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  const int expected_rank = rank == 0 ? 0 : (keepdim ? rank : rank - 1);
  if (out->rank != expected_rank) return KGB_ERR_INVALID;

  // Kept dimensions of self, matched with out's, merged where both allow it.
  Slices g{};
  int kept = 0;
  cl_long slices = 1;
  for (int d = 0; d < rank; ++d) {
    if (d == dim) continue;
    const int od = keepdim ? d : (d < dim ? d : d - 1);
    if (out->sizes[od] != self->sizes[d]) return KGB_ERR_INVALID;
    slices *= self->sizes[d];
    if (self->sizes[d] == 1) continue;
    if (kept > 0 && g.sa[kept - 1] == self->strides[d] * self->sizes[d] &&
        g.sb[kept - 1] == out->strides[od] * self->sizes[d]) {
      g.size[kept - 1] *= self->sizes[d];
      g.sa[kept - 1] = self->strides[d];
      g.sb[kept - 1] = out->strides[od];
      continue;
    }
    g.size[kept] = self->sizes[d];
    g.sa[kept] = self->strides[d];
    g.sb[kept] = out->strides[od];
    ++kept;
  }
  const cl_long len = rank == 0 ? 1 : self->sizes[dim];
  const cl_long step = rank == 0 ? 0 : self->strides[dim];
  if (slices == 0) return KGB_OK;

  // Work-groups when a slice is contiguous or the slices are few.
  const bool groups = len > 0 && (step == 1 || step == -1 || slices < 1024);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, groups ? "sum_groups" : "sum_items", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, self);
  err |= clSetKernelArg(k, 4, sizeof g, &g);
  err |= clSetKernelArg(k, 5, sizeof kept, &kept);
  err |= clSetKernelArg(k, 6, sizeof len, &len);
  err |= clSetKernelArg(k, 7, sizeof step, &step);
  if (!groups) err |= clSetKernelArg(k, 8, sizeof slices, &slices);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = kGroup;
  const size_t global = groups ? static_cast<size_t>(slices) * kGroup
                               : (static_cast<size_t>(slices) + kGroup - 1) / kGroup * kGroup;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
