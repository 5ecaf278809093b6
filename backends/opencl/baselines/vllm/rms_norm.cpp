// vllm/rms_norm, plain OpenCL baseline: one work-item per token.
#include "../plain_common.h"
#include "kgb_entries/vllm/rms_norm.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void rms_norm(__global S* o, long oo, __global const S* x, long xo, __global const S* w, long wo, Dims g,
                       int rank, long tokens, long hidden, long xs, long os, long ws, float epsilon) {
  long t = get_global_id(0);
  if (t >= tokens) return;
  long a, b, c, d;
  offsets(&g, rank, t, &a, &b, &c, &d);
  float acc = 0;
  for (long j = 0; j < hidden; ++j) {
    float v = LOAD(x[xo + b + j * xs]);
    acc += v * v;
  }
  float inv = 1.0f / sqrt(acc / (float)hidden + epsilon);
  for (long j = 0; j < hidden; ++j) o[oo + a + j * os] = STORE(LOAD(x[xo + b + j * xs]) * inv * LOAD(w[wo + j * ws]));
}
)CLC";

int rms_norm(kgb_tensor* out, const kgb_tensor* input, const kgb_tensor* weight, double epsilon, kgb_stream stream) {
  if (out->dtype != KGB_F32 && out->dtype != KGB_F16 && out->dtype != KGB_BF16) return KGB_ERR_UNSUPPORTED;
  const int r = input->rank;
  Dims g;
  for (int d = 0; d + 1 < r; ++d) g.add(input->sizes[d], out->strides[d], input->strides[d]);
  const cl_long hidden = input->sizes[r - 1];
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(out->dtype), "rms_norm");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(input).tensor(weight).dims(g).value(g.count).value(hidden);
  args.value(input->strides[r - 1]).value(out->strides[r - 1]).value(weight->strides[0]);
  args.value(static_cast<cl_float>(epsilon));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(vllm_rms_norm, kKind, rms_norm);
}  // namespace kgb::opencl::plain
