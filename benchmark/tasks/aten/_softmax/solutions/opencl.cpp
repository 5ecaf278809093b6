// aten/_softmax in OpenCL: out = exp(x - max) / sum(exp(x - max)) per slice;
// out in self's dtype (KGB_OT == KGB_DT), or f32 from f16 with half_to_float.
// GPUs: slices contiguous along dim (or few slices): one work-group of 256
// per slice, max and sum reduced in local memory. Otherwise, and on CPU
// devices, one work-item per slice, three passes over it (neighbouring
// work-items read neighbouring addresses in the usual layouts); with a float
// or double out, exp(x - max) is stored once and rescaled in place.
// IEEE special values follow from the formula: a NaN or +inf makes the slice
// NaN (fmax skips NaN, exp(NaN) and inf - inf keep it), an all -inf slice
// gives NaN. f64 computes in double,
// the others in float; f16/bf16 are ushort data converted in the kernel.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 256;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#ifndef KGB_OT
#define KGB_OT KGB_DT
#endif
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define GROUP 256

#if KGB_DT == 6
typedef float S; typedef float C;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 7
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
#endif
/* out's storage type O: self's, or float (half_to_float) */
#if KGB_OT == KGB_DT
typedef S O;
#define STORE_O(v) STORE(v)
#else
typedef float O;
#define STORE_O(v) (v)
#endif

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
void softmax_groups(__global O* out, long o_off, __global const S* in, long i_off, Slices g, int rank, long len,
                    long in_step, long out_step) {
  __local C partial[GROUP];
  long a, b;
  slice_base(&g, rank, get_group_id(0), &a, &b);
  __global const S* x = in + i_off + a;
  __global O* y = out + o_off + b;
  int lid = get_local_id(0);
  C m = -INFINITY;
  for (long k = lid; k < len; k += GROUP) m = fmax(m, LOAD(x[k * in_step]));
  partial[lid] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) partial[lid] = fmax(partial[lid], partial[lid + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  m = partial[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  C sum = 0;
  for (long k = lid; k < len; k += GROUP) sum += exp(LOAD(x[k * in_step]) - m);
  partial[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) partial[lid] += partial[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  sum = partial[0];
  for (long k = lid; k < len; k += GROUP) y[k * out_step] = STORE_O(exp(LOAD(x[k * in_step]) - m) / sum);
}

__kernel void softmax_items(__global O* out, long o_off, __global const S* in, long i_off, Slices g, int rank,
                            long len, long in_step, long out_step, long slices) {
  long s = get_global_id(0);
  if (s >= slices) return;
  long a, b;
  slice_base(&g, rank, s, &a, &b);
  __global const S* x = in + i_off + a;
  __global O* y = out + o_off + b;
  C m = -INFINITY;
  for (long k = 0; k < len; ++k) m = fmax(m, LOAD(x[k * in_step]));
  C sum = 0;
#if KGB_OT == 6 || KGB_OT == 7
  /* out holds the compute type: keep exp(x - m) there and rescale it (one exp per element) */
  for (long k = 0; k < len; ++k) {
    C e = exp(LOAD(x[k * in_step]) - m);
    y[k * out_step] = e;
    sum += e;
  }
  C inv = (C)1 / sum;
  for (long k = 0; k < len; ++k) y[k * out_step] *= inv;
#else
  for (long k = 0; k < len; ++k) sum += exp(LOAD(x[k * in_step]) - m);
  for (long k = 0; k < len; ++k) y[k * out_step] = STORE_O(exp(LOAD(x[k * in_step]) - m) / sum);
#endif
}
)CLC";

struct Slices {
  cl_long size[8], sa[8], sb[8];
};

// -DKGB_DT: self's dtype; -DKGB_OT: out's (f32 = 6 with half_to_float).
const char* build_options(int32_t dtype, int half_to_float) {
  if (half_to_float) return dtype == KGB_F16 ? "-cl-std=CL1.2 -DKGB_DT=4 -DKGB_OT=6" : nullptr;
  switch (dtype) {
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4 -DKGB_OT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5 -DKGB_OT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6 -DKGB_OT=6";
    case KGB_F64: return "-cl-std=CL1.2 -DKGB_DT=7 -DKGB_OT=7";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_aten__softmax(const kgb_tensor* self, int64_t dim, int half_to_float, kgb_tensor* out,
                                 kgb_stream stream) {
  if (half_to_float ? (self->dtype != KGB_F16 || out->dtype != KGB_F32) : self->dtype != out->dtype)
    return KGB_ERR_UNSUPPORTED;
  const char* options = build_options(self->dtype, half_to_float);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const int rank = self->rank;
  if (out->rank != rank) return KGB_ERR_INVALID;
  const int64_t nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  Slices g{};
  int kept = 0;
  cl_long slices = 1;
  for (int d = 0; d < rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
    if (d == dim) continue;
    slices *= self->sizes[d];
    if (self->sizes[d] == 1) continue;
    if (kept > 0 && g.sa[kept - 1] == self->strides[d] * self->sizes[d] &&
        g.sb[kept - 1] == out->strides[d] * self->sizes[d]) {
      g.size[kept - 1] *= self->sizes[d];
      g.sa[kept - 1] = self->strides[d];
      g.sb[kept - 1] = out->strides[d];
      continue;
    }
    g.size[kept] = self->sizes[d];
    g.sa[kept] = self->strides[d];
    g.sb[kept] = out->strides[d];
    ++kept;
  }
  const cl_long len = rank == 0 ? 1 : self->sizes[dim];
  const cl_long in_step = rank == 0 ? 0 : self->strides[dim], out_step = rank == 0 ? 0 : out->strides[dim];
  if (slices == 0 || len == 0) return KGB_OK;

  // GPUs: a work-group per contiguous slice (coalesced), or when slices are too
  // few to fill the device. CPU devices (PoCL): a work-item per slice, whose
  // sequential walk is what a core does best, unless there are too few slices.
  const bool cpu = kgb_cl_device_type(stream) == CL_DEVICE_TYPE_CPU;
  const bool groups = cpu ? slices < 64 : (in_step == 1 || slices < 1024);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, groups ? "softmax_groups" : "softmax_items", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, self);
  err |= clSetKernelArg(k, 4, sizeof g, &g);
  err |= clSetKernelArg(k, 5, sizeof kept, &kept);
  err |= clSetKernelArg(k, 6, sizeof len, &len);
  err |= clSetKernelArg(k, 7, sizeof in_step, &in_step);
  err |= clSetKernelArg(k, 8, sizeof out_step, &out_step);
  if (!groups) err |= clSetKernelArg(k, 9, sizeof slices, &slices);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = kGroup;
  const size_t global = groups ? static_cast<size_t>(slices) * kGroup
                               : (static_cast<size_t>(slices) + kGroup - 1) / kGroup * kGroup;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
