// vllm/scaled_fp8_quant in OpenCL: static, dynamic and dynamic per-token
// quantisation to fp8 e4m3fn with saturation, vLLM's arithmetic.
//
// Static: a 2-D range, one work-item per element (dimension 0 along the row,
// so neighbouring work-items touch neighbouring elements; no integer
// division), multiplying by the float reciprocal of the scale. Dynamic: the
// scale output itself accumulates max |x|: it is zeroed, one work-group per
// row reduces the row in local memory and folds it in with one atomic_max on
// the float's bits (non-negative floats order as their bits), a single
// work-item turns it into absmax / 448, and the static kernel then reads it. Per token: one
// work-group per row reduces the row's absmax, derives the scale (scale_ub,
// floor 1 / (448 * 512)), stores it and quantises the row dividing by it.
// On CPU devices (PoCL) the reductions and the per-token op take one
// work-item per row instead (see the kernels). Rounding: KGB_CL_HALF_SOURCE's saturating round-to-nearest-even (the clamp
// to +-448 is part of it); f16/bf16 inputs are ushort data.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 256;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#define GROUP 256
#define FP8_MAX 448.0f

#if KGB_DT == 6
typedef float S;
#define LOAD(v) (v)
#elif KGB_DT == 4
typedef ushort S;
#define LOAD(v) kgb_f16_to_float(v)
#elif KGB_DT == 5
typedef ushort S;
#define LOAD(v) kgb_bf16_to_float(v)
#endif

// One work-item per element: dimension 0 walks a row (consecutive work-items
// touch consecutive elements), dimension 1 is the row.
__kernel void quant_per_tensor(__global uchar* out, long o_off, __global const S* in, long i_off,
                               __global const float* scale, long s_off, long hidden, long o0, long o1, long i0, long i1) {
  const long j = get_global_id(0), t = get_global_id(1);
  if (j >= hidden) return;
  const float inv = 1.0f / scale[s_off];
  out[o_off + t * o0 + j * o1] = kgb_float_to_f8e4m3fn_sat(LOAD(in[i_off + t * i0 + j * i1]) * inv);
}

float group_max(float v, __local float* partial) {
  const int lid = get_local_id(0);
  partial[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) partial[lid] = fmax(partial[lid], partial[lid + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return partial[0];
}

__kernel void zero_scale(__global float* scale, long s_off) { scale[s_off] = 0.0f; }

// One work-group per row: the row's max |x| folded into the scale.
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void absmax_rows(__global float* scale, long s_off, __global const S* in, long i_off, long hidden, long i0, long i1) {
  __local float partial[GROUP];
  const long t = get_group_id(1);
  float m = 0.0f;
  for (long j = get_local_id(0); j < hidden; j += GROUP) m = fmax(m, fabs(LOAD(in[i_off + t * i0 + j * i1])));
  m = group_max(m, partial);
  if (get_local_id(0) == 0) atomic_max((volatile __global uint*)(scale + s_off), as_uint(m));
}

__kernel void absmax_to_scale(__global float* scale, long s_off) { scale[s_off] = scale[s_off] / FP8_MAX; }

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void quant_per_token(__global uchar* out, long o_off, __global const S* in, long i_off, __global float* scale, long s_off,
                     __global const float* ub, long ub_off, int has_ub, long hidden, long o0, long o1, long i0, long i1,
                     long s0) {
  __local float partial[GROUP];
  const long t = get_group_id(1);
  const int lid = get_local_id(0);
  float m = 0.0f;
  for (long j = lid; j < hidden; j += GROUP) m = fmax(m, fabs(LOAD(in[i_off + t * i0 + j * i1])));
  m = group_max(m, partial);
  if (has_ub) m = fmin(m, ub[ub_off]);
  const float s = fmax(m / FP8_MAX, 1.0f / (FP8_MAX * 512.0f));
  if (lid == 0) scale[s_off + t * s0] = s;
  for (long j = lid; j < hidden; j += GROUP)
    out[o_off + t * o0 + j * o1] = kgb_float_to_f8e4m3fn_sat(LOAD(in[i_off + t * i0 + j * i1]) / s);
}

// CPU devices (PoCL): one work-item per row. The implementation runs the
// work-items of a group as a loop and vectorises across them; barriers and
// local reductions cost more there than they save.
float row_absmax(__global const S* in, long base, long hidden, long i1) {
  float m = 0.0f;
  for (long j = 0; j < hidden; ++j) m = fmax(m, fabs(LOAD(in[base + j * i1])));
  return m;
}

__kernel void absmax_row_items(__global float* scale, long s_off, __global const S* in, long i_off, long tokens, long hidden,
                               long i0, long i1) {
  const long t = get_global_id(0);
  if (t < tokens) atomic_max((volatile __global uint*)(scale + s_off), as_uint(row_absmax(in, i_off + t * i0, hidden, i1)));
}

__kernel void quant_per_token_items(__global uchar* out, long o_off, __global const S* in, long i_off, __global float* scale,
                                    long s_off, __global const float* ub, long ub_off, int has_ub, long tokens, long hidden,
                                    long o0, long o1, long i0, long i1, long s0) {
  const long t = get_global_id(0);
  if (t >= tokens) return;
  float m = row_absmax(in, i_off + t * i0, hidden, i1);
  if (has_ub) m = fmin(m, ub[ub_off]);
  const float s = fmax(m / FP8_MAX, 1.0f / (FP8_MAX * 512.0f));
  scale[s_off + t * s0] = s;
  for (long j = 0; j < hidden; ++j) out[o_off + t * o0 + j * o1] = kgb_float_to_f8e4m3fn_sat(LOAD(in[i_off + t * i0 + j * i1]) / s);
}
)CLC";

enum class Mode { Static, Dynamic, PerToken };

const char* options_for(int32_t dtype) {
  switch (dtype) {
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    default: return nullptr;
  }
}

// Sets consecutive kernel arguments: tensors as (buffer, element offset), values as they are.
struct Args {
  kgb_stream stream;
  cl_kernel kernel;
  cl_uint next = 0;
  cl_int error = CL_SUCCESS;
  Args& tensor(const kgb_tensor* t) {
    if (error == CL_SUCCESS) error = kgb_cl_set_tensor_arg(stream, kernel, next, t);
    next += 2;
    return *this;
  }
  template <typename T>
  Args& value(const T& v) {
    if (error == CL_SUCCESS) error = clSetKernelArg(kernel, next, sizeof v, &v);
    ++next;
    return *this;
  }
};

int run(Mode mode, kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, const kgb_tensor* scale_ub,
        kgb_stream stream) {
  if (input->rank != 2 || result->rank != 2 || result->sizes[0] != input->sizes[0] || result->sizes[1] != input->sizes[1] ||
      result->dtype != KGB_F8E4M3FN || scale->dtype != KGB_F32 || (scale_ub && scale_ub->dtype != KGB_F32))
    return KGB_ERR_INVALID;
  const char* options = options_for(input->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const cl_long tokens = input->sizes[0], hidden = input->sizes[1];
  // No rows: nothing to write, except the dynamic op's scale (0, from an empty max).
  if (tokens == 0 && mode != Mode::Dynamic) return KGB_OK;
  const cl_long o0 = result->strides[0], o1 = result->strides[1], i0 = input->strides[0], i1 = input->strides[1];
  const size_t local[2] = {kGroup, 1};
  // A row per group index 1; dimension 0 covers the row (rounded up to whole work-groups).
  const size_t row_global[2] = {(static_cast<size_t>(hidden) + kGroup - 1) / kGroup * kGroup, static_cast<size_t>(tokens)};
  const size_t group_per_row[2] = {kGroup, static_cast<size_t>(tokens)};
  auto kernel = [&](const char* name) {
    cl_kernel k = nullptr;
    return kgb_cl_get_kernel(stream, kSource, options, name, &k) == CL_SUCCESS ? k : nullptr;
  };
  auto enqueue = [&](cl_kernel k, cl_uint dims, const size_t* global, const size_t* local_size) {
    return kgb_cl_enqueue(stream, k, dims, global, local_size) == CL_SUCCESS;
  };
  const size_t one = 1;

  const bool cpu_device = (kgb_cl_device_type(stream) & CL_DEVICE_TYPE_CPU) != 0;
  const size_t row_items = (static_cast<size_t>(tokens) + 63) / 64 * 64, row_items_local = 64;
  if (mode == Mode::PerToken) {
    cl_kernel k = kernel(cpu_device ? "quant_per_token_items" : "quant_per_token");
    if (!k) return KGB_ERR_INVALID;
    Args a{stream, k};
    a.tensor(result).tensor(input).tensor(scale);
    if (scale_ub) a.tensor(scale_ub);
    else a.tensor(scale);  // any buffer: not read when has_ub is 0
    a.value(static_cast<cl_int>(scale_ub != nullptr));
    if (cpu_device) a.value(tokens);
    a.value(hidden).value(o0).value(o1).value(i0).value(i1).value(static_cast<cl_long>(scale->strides[0]));
    if (a.error != CL_SUCCESS) return KGB_ERR_INVALID;
    const bool ok = cpu_device ? enqueue(k, 1, &row_items, &row_items_local) : enqueue(k, 2, group_per_row, local);
    return ok ? KGB_OK : KGB_ERR_INVALID;
  }

  if (mode == Mode::Dynamic) {
    cl_kernel zero = kernel("zero_scale"), reduce = kernel(cpu_device ? "absmax_row_items" : "absmax_rows"),
              finish = kernel("absmax_to_scale");
    if (!zero || !reduce || !finish) return KGB_ERR_INVALID;
    Args z{stream, zero}, r{stream, reduce}, f{stream, finish};
    z.tensor(scale);
    r.tensor(scale).tensor(input);
    if (cpu_device) r.value(tokens);
    r.value(hidden).value(i0).value(i1);
    f.tensor(scale);
    if (z.error != CL_SUCCESS || r.error != CL_SUCCESS || f.error != CL_SUCCESS) return KGB_ERR_INVALID;
    if (!enqueue(zero, 1, &one, nullptr)) return KGB_ERR_INVALID;
    if (tokens > 0 && !(cpu_device ? enqueue(reduce, 1, &row_items, &row_items_local) : enqueue(reduce, 2, group_per_row, local)))
      return KGB_ERR_INVALID;
    if (!enqueue(finish, 1, &one, nullptr)) return KGB_ERR_INVALID;
    if (tokens == 0) return KGB_OK;
  }
  cl_kernel k = kernel("quant_per_tensor");
  if (!k) return KGB_ERR_INVALID;
  Args a{stream, k};
  a.tensor(result).tensor(input).tensor(scale).value(hidden).value(o0).value(o1).value(i0).value(i1);
  if (a.error != CL_SUCCESS) return KGB_ERR_INVALID;
  if (hidden == 0) return KGB_OK;
  return enqueue(k, 2, row_global, local) ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_vllm_scaled_fp8_quant(kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, kgb_stream stream) {
  return run(Mode::Static, result, input, scale, nullptr, stream);
}

extern "C" int kgb_vllm_scaled_fp8_quant_dynamic(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale,
                                                 kgb_stream stream) {
  return run(Mode::Dynamic, result, input, scale, nullptr, stream);
}

extern "C" int kgb_vllm_scaled_fp8_quant_dynamic_per_token(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale,
                                                           const kgb_tensor* scale_ub, kgb_stream stream) {
  return run(Mode::PerToken, result, input, scale, scale_ub, stream);
}
