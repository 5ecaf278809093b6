// aten/im2col, plain OpenCL baseline: one work-item per element of out, its
// (n, row, l) index decomposed into channel, kernel tap and block position,
// reading self through its strides or writing zero bits in the padding.
// Elements move bit for bit (the program is built per element size).
#include "bit_copy.h"
#include "kgb_entries/aten/im2col.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = bit_copy_prelude() + R"CLC(
// g: kh, kw, dh, dw, ph, pw, sh, sw, H, W, OW, rows, L; s: self strides n, c, y, x; o: out strides n, row, l.
__kernel void im2col_gather(__global E* o, long oo, __global const E* x, long xo, long16 g, long4 s, long4 os, long n) {
  long e = get_global_id(0);
  if (e >= n) return;
  const long kh = g.s0, kw = g.s1, L = g.sc, rows = g.sb;
  const long l = e % L, row = (e / L) % rows, b = e / (L * rows);
  const long c = row / (kh * kw), i = (row / kw) % kh, j = row % kw;
  const long y = (l / g.sa) * g.s6 - g.s4 + i * g.s2, xx = (l % g.sa) * g.s7 - g.s5 + j * g.s3;
  const long to = oo + b * os.s0 + row * os.s1 + l * os.s2;
  if (y < 0 || y >= g.s8 || xx < 0 || xx >= g.s9) {
    o[to] = (E)0;
  } else {
    o[to] = x[xo + b * s.s0 + c * s.s1 + y * s.s2 + xx * s.s3];
  }
}
)CLC";

int im2col(const kgb_tensor* self, kgb_int_list kernel_size, kgb_int_list dilation, kgb_int_list padding,
           kgb_int_list stride, kgb_tensor* out, kgb_stream stream) {
  cl_kernel kern = kernel(stream, kSource, bit_copy_options(kgb_dtype_size(self->dtype)), "im2col_gather");
  if (!kern || kernel_size.count != 2 || dilation.count != 2 || padding.count != 2 || stride.count != 2)
    return KGB_ERR_UNSUPPORTED;
  if (self->rank != 3 && self->rank != 4) return KGB_ERR_INVALID;
  const int r = self->rank;
  const bool batched = r == 4;
  const cl_long kh = kernel_size.values[0], kw = kernel_size.values[1], dh = dilation.values[0], dw = dilation.values[1];
  const cl_long ph = padding.values[0], pw = padding.values[1], sh = stride.values[0], sw = stride.values[1];
  if (kh <= 0 || kw <= 0 || dh <= 0 || dw <= 0 || sh <= 0 || sw <= 0 || ph < 0 || pw < 0) return KGB_ERR_INVALID;
  const cl_long height = self->sizes[r - 2], width = self->sizes[r - 1];
  const cl_long oh = (height + 2 * ph - dh * (kh - 1) - 1) / sh + 1, ow = (width + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
  const cl_long rows = self->sizes[r - 3] * kh * kw, length = oh * ow;
  const cl_long n = (batched ? self->sizes[0] : 1) * rows * length;
  if (n == 0) return KGB_OK;
  cl_long16 g = {{kh, kw, dh, dw, ph, pw, sh, sw, height, width, ow, rows, length, 0, 0, 0}};
  cl_long4 s = {{batched ? self->strides[0] : 0, self->strides[r - 3], self->strides[r - 2], self->strides[r - 1]}};
  cl_long4 os = {{batched ? out->strides[0] : 0, out->strides[out->rank - 2], out->strides[out->rank - 1], 0}};
  Args args{stream, kern};
  args.tensor(out).tensor(self).value(g).value(s).value(os).value(n);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, kern, n);
}

}  // namespace
KGB_BASELINE(aten_im2col, kKind, im2col);
}  // namespace kgb::opencl::plain
