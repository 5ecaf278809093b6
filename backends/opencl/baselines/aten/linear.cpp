// aten/linear, plain OpenCL baseline: one work-item per output element
// computes input[r, :] . weight[j, :] straight from global memory and adds
// the bias. The leading dims of input and out are walked with Dims.
#include "../plain_common.h"
#include "kgb_entries/aten/linear.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void linear(__global S* o, long oo, __global const S* x, long xo, __global const S* w, long wo,
                     __global const S* bias, long bo, Dims g, int rank, long rows, long N, long K, long xk, long w0,
                     long w1, long bs, int has_bias, long on) {
  long e = get_global_id(0);
  if (e >= rows * N) return;
  long r = e / N, j = e - r * N;
  long xr, orow, unused0, unused1;
  offsets(&g, rank, r, &xr, &orow, &unused0, &unused1);
  C acc = 0;
  for (long l = 0; l < K; ++l) acc += LOAD(x[xo + xr + l * xk]) * LOAD(w[wo + j * w0 + l * w1]);
  if (has_bias) acc += LOAD(bias[bo + j * bs]);
  o[oo + orow + j * on] = STORE(acc);
}
)CLC";

int linear(const kgb_tensor* input, const kgb_tensor* weight, const kgb_tensor* bias, kgb_tensor* out, kgb_stream stream) {
  if (input->dtype != KGB_F32 && input->dtype != KGB_F64 && input->dtype != KGB_F16 && input->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  const int last = input->rank - 1;
  const cl_long K = input->sizes[last], N = weight->sizes[0];
  Dims g;  // leading dims: s0 = input's strides, s1 = out's
  for (int d = 0; d < last; ++d) g.add(input->sizes[d], input->strides[d], out->strides[d]);
  if (g.count * N == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(input->dtype), "linear");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(input).tensor(weight).tensor(bias ? bias : weight).dims(g).value(g.count).value(N).value(K);
  args.value(static_cast<cl_long>(input->strides[last])).value(static_cast<cl_long>(weight->strides[0]));
  args.value(static_cast<cl_long>(weight->strides[1])).value(static_cast<cl_long>(bias ? bias->strides[0] : 0));
  args.value(static_cast<cl_int>(bias != nullptr)).value(static_cast<cl_long>(out->strides[out->rank - 1]));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count * N) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_linear, kKind, linear);
}  // namespace kgb::opencl::plain
