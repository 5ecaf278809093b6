// aten/reflection_pad1d_backward in OpenCL: grad_input[..., i] sums the
// grad_output elements of its row that reflect onto i: its own position
// x = i + pad_left, the left mirror pad_left - i (1 <= i <= pad_left) and the
// right mirror 2 (W - 1) - i + pad_left (W - 1 - pad_right <= i <= W - 2).
//
// A gather, one work-item per grad_input element summing its (at most three)
// terms in a fixed order: no atomics, the same bits on every run. Elements
// with only their own term (the row interior, where the kernel takes no
// branch) pass grad_output's value through. A 2-D range: dimension 0 runs
// along the row (neighbouring work-items, neighbouring elements: coalesced),
// dimension 1 over the rows (n, c), resolved once per work-item.
// f16/bf16 add in float and round once; f64 needs cl_khr_fp64.
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
typedef double S; typedef double A;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S; typedef float A;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_DT == 5
typedef ushort S; typedef float A;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#else
typedef float S; typedef float A;
#define LOAD(v) (v)
#define STORE(v) (v)
#endif

// q: W, pad_left, pad_right, OW, rows, C; gs / os: (batch, channel, last) strides.
__kernel void reflection_pad1d_backward(__global const S* grad, long g_off, __global S* out, long o_off, long8 q,
                                        long4 gs, long4 os) {
  const long i = get_global_id(0), row = get_global_id(1);
  const long W = q.s0, pl = q.s1, pr = q.s2, OW = q.s3, rows = q.s4, C = q.s5;
  if (i >= W || row >= rows) return;
  const long n = row / C, c = row % C;
  __global const S* g = grad + g_off + n * gs.s0 + c * gs.s1;
  A s = 0;
  const long x = i + pl;
  if (x >= 0 && x < OW) s += LOAD(g[x * gs.s2]);
  if (i >= 1 && i <= pl) s += LOAD(g[(pl - i) * gs.s2]);
  if (i <= W - 2 && i >= W - 1 - pr) s += LOAD(g[(2 * (W - 1) - i + pl) * gs.s2]);
  out[o_off + n * os.s0 + c * os.s1 + i * os.s2] = STORE(s);
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

}  // namespace

extern "C" int kgb_aten_reflection_pad1d_backward(const kgb_tensor* grad_output, const kgb_tensor* self,
                                                  kgb_int_list padding, kgb_tensor* grad_input, kgb_stream stream) {
  if (padding.count != 2) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if ((rank != 2 && rank != 3) || grad_output->rank != rank || grad_input->rank != rank) return KGB_ERR_INVALID;
  if (grad_output->dtype != self->dtype || grad_input->dtype != self->dtype) return KGB_ERR_INVALID;
  const int64_t W = self->sizes[rank - 1], pl = padding.values[0], pr = padding.values[1], OW = W + pl + pr;
  if (pl >= W || pr >= W) return KGB_ERR_INVALID;
  for (int d = 0; d < rank; ++d) {
    if (grad_input->sizes[d] != self->sizes[d]) return KGB_ERR_INVALID;
    if (grad_output->sizes[d] != (d == rank - 1 ? OW : self->sizes[d])) return KGB_ERR_INVALID;
  }
  const char* options = build_options(self->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const bool batched = rank == 3;
  const int64_t C = self->sizes[rank - 2], rows = (batched ? self->sizes[0] : 1) * C;
  if (rows == 0 || W == 0) return KGB_OK;
  if (pl <= -W || pr <= -W) return KGB_ERR_INVALID;  // outside what the task defines

  cl_long8 q{};
  q.s[0] = W;
  q.s[1] = pl;
  q.s[2] = pr;
  q.s[3] = OW;
  q.s[4] = rows;
  q.s[5] = C;
  cl_long4 gs{}, os{};
  gs.s[0] = batched ? grad_output->strides[0] : 0;
  gs.s[1] = grad_output->strides[rank - 2];
  gs.s[2] = grad_output->strides[rank - 1];
  os.s[0] = batched ? grad_input->strides[0] : 0;
  os.s[1] = grad_input->strides[rank - 2];
  os.s[2] = grad_input->strides[rank - 1];
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "reflection_pad1d_backward", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, grad_output);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, grad_input);
  err |= clSetKernelArg(k, 4, sizeof q, &q);
  err |= clSetKernelArg(k, 5, sizeof gs, &gs);
  err |= clSetKernelArg(k, 6, sizeof os, &os);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  // Groups of 128: along the row as far as it reaches (a power of two), the rest across rows.
  size_t along = 1;
  while (along < 128 && along < static_cast<size_t>(W)) along *= 2;
  const size_t local[2] = {along, 128 / along};
  const size_t global[2] = {(static_cast<size_t>(W) + local[0] - 1) / local[0] * local[0],
                            (static_cast<size_t>(rows) + local[1] - 1) / local[1] * local[1]};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
