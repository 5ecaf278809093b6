// vllm/silu_and_mul, plain OpenCL baseline: one work-item per output element.
#include "../plain_common.h"
#include "kgb_entries/vllm/silu_and_mul.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void silu_and_mul(__global S* o, long oo, __global const S* x, long xo, Dims g, int rank, long n, long d,
                           long xs) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, unused0, unused1;
  offsets(&g, rank, i, &a, &b, &unused0, &unused1);
  float gate = LOAD(x[xo + b]), up = LOAD(x[xo + b + d * xs]);
  o[oo + a] = STORE(gate / (1.0f + exp(-gate)) * up);
}
)CLC";

int silu_and_mul(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  if (out->dtype != KGB_F32 && out->dtype != KGB_F16 && out->dtype != KGB_BF16) return KGB_ERR_UNSUPPORTED;
  Dims g;
  for (int d = 0; d < out->rank; ++d) g.add(out->sizes[d], out->strides[d], input->strides[d]);
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(out->dtype), "silu_and_mul");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(input).dims(g).value(g.count).value(out->sizes[out->rank - 1]);
  args.value(input->strides[input->rank - 1]);
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(vllm_silu_and_mul, kKind, silu_and_mul);
}  // namespace kgb::opencl::plain
