// vllm/rms_norm in OpenCL: out[t, j] = x[j] * inv_rms(t) * w[j].
// One work-group of 256 work-items per token: the work-items stride over the
// hidden dimension accumulating x^2 in float, a tree reduction in local
// memory gives the mean square, then the same work-items write the row.
// f16/bf16 are ushort data converted in the kernel.
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

#if KGB_DT == 6
typedef float S;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4
typedef ushort S;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_DT == 5
typedef ushort S;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#endif

typedef struct { long size[8]; long si[8]; long so[8]; } Tokens;

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void rms_norm(__global S* out, long o_off, __global const S* in, long i_off, __global const S* w, long w_off,
              Tokens g, int lead, long hidden, long in_step, long out_step, long w_step, float epsilon) {
  __local float partial[GROUP];
  long t = get_group_id(0);
  int lid = get_local_id(0);
  long bi = i_off, bo = o_off, r = t;
  for (int k = lead - 1; k >= 0; --k) {
    long q = r / g.size[k], idx = r - q * g.size[k];
    r = q;
    bi += idx * g.si[k];
    bo += idx * g.so[k];
  }
  float acc = 0.0f;
  for (long j = lid; j < hidden; j += GROUP) {
    float x = LOAD(in[bi + j * in_step]);
    acc += x * x;
  }
  partial[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) partial[lid] += partial[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float inv = 1.0f / sqrt(partial[0] / (float)hidden + epsilon);
  for (long j = lid; j < hidden; j += GROUP) {
    float x = LOAD(in[bi + j * in_step]);
    out[bo + j * out_step] = STORE(x * inv * LOAD(w[w_off + j * w_step]));
  }
}
)CLC";

struct Tokens {
  cl_long size[8], si[8], so[8];
};

const char* build_options(int32_t dtype) {
  switch (dtype) {
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_vllm_rms_norm(kgb_tensor* out, const kgb_tensor* input, const kgb_tensor* weight, double epsilon,
                                 kgb_stream stream) {
  if (input->dtype != out->dtype || weight->dtype != out->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const int rank = input->rank;
  if (rank < 1 || out->rank != rank || weight->rank != 1) return KGB_ERR_INVALID;
  const cl_long hidden = input->sizes[rank - 1];
  if (out->sizes[rank - 1] != hidden || weight->sizes[0] != hidden) return KGB_ERR_INVALID;
  Tokens g{};
  int lead = 0;
  cl_long tokens = 1;
  for (int k = 0; k < rank - 1; ++k) {
    if (input->sizes[k] != out->sizes[k]) return KGB_ERR_INVALID;
    tokens *= input->sizes[k];
    if (input->sizes[k] == 1) continue;
    if (lead > 0 && g.si[lead - 1] == input->strides[k] * input->sizes[k] &&
        g.so[lead - 1] == out->strides[k] * input->sizes[k]) {
      g.size[lead - 1] *= input->sizes[k];
      g.si[lead - 1] = input->strides[k];
      g.so[lead - 1] = out->strides[k];
      continue;
    }
    g.size[lead] = input->sizes[k];
    g.si[lead] = input->strides[k];
    g.so[lead] = out->strides[k];
    ++lead;
  }
  if (tokens == 0 || hidden == 0) return KGB_OK;
  const cl_long in_step = input->strides[rank - 1], out_step = out->strides[rank - 1], w_step = weight->strides[0];
  const cl_float eps = static_cast<cl_float>(epsilon);

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "rms_norm", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, input);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, weight);
  err |= clSetKernelArg(k, 6, sizeof g, &g);
  err |= clSetKernelArg(k, 7, sizeof lead, &lead);
  err |= clSetKernelArg(k, 8, sizeof hidden, &hidden);
  err |= clSetKernelArg(k, 9, sizeof in_step, &in_step);
  err |= clSetKernelArg(k, 10, sizeof out_step, &out_step);
  err |= clSetKernelArg(k, 11, sizeof w_step, &w_step);
  err |= clSetKernelArg(k, 12, sizeof eps, &eps);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = kGroup;
  const size_t global = static_cast<size_t>(tokens) * kGroup;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
