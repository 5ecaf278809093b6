// vllm/silu_and_mul in OpenCL: out[t, j] = silu(input[t, j]) * input[t, d + j].
// A 2-D range: dimension 0 runs over j (consecutive work-items read
// consecutive elements of a row in the usual layouts), dimension 1 over the
// tokens. The leading dimensions are merged where input and out allow it, so
// a token's row offsets cost at most one division per merged dimension.
// Computed in float; f16/bf16 are ushort data converted in the kernel.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif

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

// Leading (token) dimensions: sizes and strides of input and out.
typedef struct { long size[8]; long si[8]; long so[8]; } Tokens;

__kernel void silu_and_mul(__global S* out, long o_off, __global const S* in, long i_off, Tokens g, int lead,
                           long d, long tokens, long in_step, long out_step) {
  long j = get_global_id(0), t = get_global_id(1);
  if (j >= d || t >= tokens) return;
  long bi = i_off, bo = o_off, r = t;
  for (int k = lead - 1; k >= 0; --k) {
    long q = r / g.size[k], idx = r - q * g.size[k];
    r = q;
    bi += idx * g.si[k];
    bo += idx * g.so[k];
  }
  float x = LOAD(in[bi + j * in_step]);
  float y = LOAD(in[bi + (d + j) * in_step]);
  out[bo + j * out_step] = STORE(x / (1.0f + exp(-x)) * y);
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

extern "C" int kgb_vllm_silu_and_mul(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  if (input->dtype != out->dtype) return KGB_ERR_INVALID;
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const int rank = input->rank;
  if (rank < 1 || out->rank != rank) return KGB_ERR_INVALID;
  const cl_long d = out->sizes[rank - 1];
  if (input->sizes[rank - 1] != 2 * d) return KGB_ERR_INVALID;
  Tokens g{};
  int lead = 0;
  cl_long tokens = 1;
  for (int k = 0; k < rank - 1; ++k) {
    if (input->sizes[k] != out->sizes[k]) return KGB_ERR_INVALID;
    tokens *= input->sizes[k];
    if (input->sizes[k] == 1) continue;
    // Merge with the previous leading dimension when both tensors allow it.
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
  if (tokens == 0 || d == 0) return KGB_OK;
  const cl_long in_step = input->strides[rank - 1], out_step = out->strides[rank - 1];

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "silu_and_mul", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, input);
  err |= clSetKernelArg(k, 4, sizeof g, &g);
  err |= clSetKernelArg(k, 5, sizeof lead, &lead);
  err |= clSetKernelArg(k, 6, sizeof d, &d);
  err |= clSetKernelArg(k, 7, sizeof tokens, &tokens);
  err |= clSetKernelArg(k, 8, sizeof in_step, &in_step);
  err |= clSetKernelArg(k, 9, sizeof out_step, &out_step);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local[2] = {64, 4};
  const size_t global[2] = {(static_cast<size_t>(d) + 63) / 64 * 64, (static_cast<size_t>(tokens) + 3) / 4 * 4};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
