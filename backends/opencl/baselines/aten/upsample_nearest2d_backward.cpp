// aten/upsample_nearest2d_backward, plain OpenCL baseline: one work-item per
// grad_input element, which sums the grad_output pixels whose legacy nearest
// source it is. The output rows (columns) of input row ih (column iw) are
// found by scanning the forward rule src(o) = min(floor(o * s), in - 1) from
// the estimate ih / s; the sum runs in the compute type (float for 16-bit).
#include "../plain_common.h"
#include "kgb_entries/aten/upsample_nearest2d_backward.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
long src_of(long o, long in, float s) {
  long v = (long)floor((float)o * s);
  return v < in - 1 ? v : in - 1;
}
long first_of(long i, long in, long out, float s) {
  if (i <= 0) return 0;
  if (i >= in) return out;
  long o = (long)ceil((float)i / s);
  o = o < 0 ? 0 : (o > out ? out : o);
  while (o > 0 && src_of(o - 1, in, s) >= i) --o;
  while (o < out && src_of(o, in, s) < i) ++o;
  return o;
}
// d: sizes N, C, H, W; s0 = grad_input strides, s1 = grad_output strides.
__kernel void upsample_nearest2d_backward(__global const S* g, long go, __global S* o, long oo, Dims d, int rank,
                                          long n, long OH, long OW, float sh, float sw) {
  long i = get_global_id(0);
  if (i >= n) return;
  long iw = i % d.size[3], ih = (i / d.size[3]) % d.size[2], c = (i / (d.size[3] * d.size[2])) % d.size[1];
  long b = i / (d.size[3] * d.size[2] * d.size[1]);
  long h0 = first_of(ih, d.size[2], OH, sh), h1 = first_of(ih + 1, d.size[2], OH, sh);
  long w0 = first_of(iw, d.size[3], OW, sw), w1 = first_of(iw + 1, d.size[3], OW, sw);
  C sum = 0;
  for (long y = h0; y < h1; ++y)
    for (long x = w0; x < w1; ++x) sum += LOAD(g[go + b * d.s1[0] + c * d.s1[1] + y * d.s1[2] + x * d.s1[3]]);
  o[oo + b * d.s0[0] + c * d.s0[1] + ih * d.s0[2] + iw * d.s0[3]] = STORE(sum);
}
)CLC";

float forward_scale(int64_t in, int64_t out, const double* scale) {
  return (scale && *scale > 0) ? static_cast<float>(1.0 / *scale) : static_cast<float>(in) / static_cast<float>(out);
}

int upsample_nearest2d_backward(const kgb_tensor* grad_output, kgb_int_list output_size, kgb_int_list input_size,
                                const double* scales_h, const double* scales_w, kgb_tensor* grad_input,
                                kgb_stream stream) {
  if (output_size.count != 2 || input_size.count != 4 || grad_input->rank != 4 || grad_output->rank != 4)
    return KGB_ERR_INVALID;
  const int64_t H = input_size.values[2], W = input_size.values[3], OH = output_size.values[0], OW = output_size.values[1];
  if (H <= 0 || W <= 0 || OH <= 0 || OW <= 0) return KGB_ERR_INVALID;
  Dims d;
  for (int k = 0; k < 4; ++k) d.add(grad_input->sizes[k], grad_input->strides[k], grad_output->strides[k]);
  if (d.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(grad_input->dtype), "upsample_nearest2d_backward");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(grad_output).tensor(grad_input).dims(d).value(d.count).value(static_cast<cl_long>(OH));
  args.value(static_cast<cl_long>(OW)).value(forward_scale(H, OH, scales_h)).value(forward_scale(W, OW, scales_w));
  return args.error == CL_SUCCESS ? launch(stream, k, d.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_upsample_nearest2d_backward, kKind, upsample_nearest2d_backward);
}  // namespace kgb::opencl::plain
