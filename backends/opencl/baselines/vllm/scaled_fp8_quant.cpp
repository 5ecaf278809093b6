// vllm/scaled_fp8_quant (static) and its overloads dynamic and
// dynamic_per_token, plain OpenCL baselines: one work-item per token,
// vLLM's arithmetic in float (static and dynamic multiply by the reciprocal
// of the scale, per token divides), clamp to +-448, round to nearest even
// into e4m3fn (kgb_half.h's OpenCL text). The dynamic op zeroes its scale,
// folds every token's absmax into it with atomic_max on the float's bits,
// divides by 448 in a single work-item, then quantises.
#include "../plain_common.h"
#include "kgb_half.h"
#include "kgb_entries/vllm/scaled_fp8_quant.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + KGB_CL_HALF_SOURCE + R"CLC(
#define FP8_MAX 448.0f
uchar quantize(float v) { return kgb_float_to_f8e4m3fn_sat(fmax(-FP8_MAX, fmin(v, FP8_MAX))); }

float row_absmax(__global const S* x, long xo, long t, long hidden, long x0, long x1) {
  float m = 0.0f;
  for (long j = 0; j < hidden; ++j) m = fmax(m, fabs(LOAD(x[xo + t * x0 + j * x1])));
  return m;
}

__kernel void quant_rows(__global uchar* q, long qo, __global const S* x, long xo, __global const float* scale, long so,
                         long tokens, long hidden, long q0, long q1, long x0, long x1) {
  long t = get_global_id(0);
  if (t >= tokens) return;
  float inv = 1.0f / scale[so];
  for (long j = 0; j < hidden; ++j) q[qo + t * q0 + j * q1] = quantize(LOAD(x[xo + t * x0 + j * x1]) * inv);
}

__kernel void zero_scale(__global float* scale, long so) {
  if (get_global_id(0) == 0) scale[so] = 0.0f;
}
__kernel void fold_absmax(__global float* scale, long so, __global const S* x, long xo, long tokens, long hidden, long x0,
                          long x1) {
  long t = get_global_id(0);
  if (t >= tokens) return;
  atomic_max((volatile __global uint*)(scale + so), as_uint(row_absmax(x, xo, t, hidden, x0, x1)));
}
__kernel void finish_scale(__global float* scale, long so) {
  if (get_global_id(0) == 0) scale[so] = scale[so] / FP8_MAX;  // launched as a group of 64
}

__kernel void quant_per_token(__global uchar* q, long qo, __global const S* x, long xo, __global float* scale, long so,
                              __global const float* ub, long uo, int has_ub, long tokens, long hidden, long q0, long q1,
                              long x0, long x1, long s0) {
  long t = get_global_id(0);
  if (t >= tokens) return;
  float m = row_absmax(x, xo, t, hidden, x0, x1);
  if (has_ub) m = fmin(m, ub[uo]);
  float s = fmax(m / FP8_MAX, 1.0f / (FP8_MAX * 512.0f));
  scale[so + t * s0] = s;
  for (long j = 0; j < hidden; ++j) q[qo + t * q0 + j * q1] = quantize(LOAD(x[xo + t * x0 + j * x1]) / s);
}
)CLC";

bool supported(const kgb_tensor* result, const kgb_tensor* input) {
  return (input->dtype == KGB_F32 || input->dtype == KGB_F16 || input->dtype == KGB_BF16) && result->dtype == KGB_F8E4M3FN &&
         input->rank == 2 && result->rank == 2;
}

int quant_rows(kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, kgb_stream stream) {
  const cl_long tokens = input->sizes[0];
  if (tokens == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(input->dtype), "quant_rows");
  if (!k) return KGB_ERR_INVALID;
  Args a{stream, k};
  a.tensor(result).tensor(input).tensor(scale).value(tokens).value(input->sizes[1]);
  a.value(result->strides[0]).value(result->strides[1]).value(input->strides[0]).value(input->strides[1]);
  return a.error == CL_SUCCESS ? launch(stream, k, tokens) : KGB_ERR_INVALID;
}

int static_plain(kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, kgb_stream stream) {
  if (!supported(result, input)) return KGB_ERR_UNSUPPORTED;
  return quant_rows(result, input, scale, stream);
}

int dynamic_plain(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale, kgb_stream stream) {
  if (!supported(result, input)) return KGB_ERR_UNSUPPORTED;
  const char* options = dtype_options(input->dtype);
  cl_kernel zero = kernel(stream, kSource, options, "zero_scale"), fold = kernel(stream, kSource, options, "fold_absmax"),
            finish = kernel(stream, kSource, options, "finish_scale");
  if (!zero || !fold || !finish) return KGB_ERR_INVALID;
  Args z{stream, zero}, f{stream, fold}, d{stream, finish};
  z.tensor(scale);
  f.tensor(scale).tensor(input).value(static_cast<cl_long>(input->sizes[0])).value(static_cast<cl_long>(input->sizes[1]));
  f.value(input->strides[0]).value(input->strides[1]);
  d.tensor(scale);
  if (z.error != CL_SUCCESS || f.error != CL_SUCCESS || d.error != CL_SUCCESS) return KGB_ERR_INVALID;
  int status = launch(stream, zero, 1);
  if (status == KGB_OK && input->sizes[0] > 0) status = launch(stream, fold, input->sizes[0]);
  if (status == KGB_OK) status = launch(stream, finish, 1);
  return status == KGB_OK ? quant_rows(result, input, scale, stream) : status;
}

int dynamic_per_token_plain(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale, const kgb_tensor* scale_ub,
                            kgb_stream stream) {
  if (!supported(result, input)) return KGB_ERR_UNSUPPORTED;
  const cl_long tokens = input->sizes[0];
  if (tokens == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(input->dtype), "quant_per_token");
  if (!k) return KGB_ERR_INVALID;
  Args a{stream, k};
  a.tensor(result).tensor(input).tensor(scale).tensor(scale_ub ? scale_ub : scale).value(static_cast<cl_int>(scale_ub != nullptr));
  a.value(tokens).value(static_cast<cl_long>(input->sizes[1])).value(result->strides[0]).value(result->strides[1]);
  a.value(input->strides[0]).value(input->strides[1]).value(scale->strides[0]);
  return a.error == CL_SUCCESS ? launch(stream, k, tokens) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(vllm_scaled_fp8_quant, kKind, static_plain);
KGB_BASELINE(vllm_scaled_fp8_quant_dynamic, kKind, dynamic_plain);
KGB_BASELINE(vllm_scaled_fp8_quant_dynamic_per_token, kKind, dynamic_per_token_plain);
}  // namespace kgb::opencl::plain
