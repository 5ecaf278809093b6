// aten/bmm, plain OpenCL baseline: one work-item per output element of the
// batch computes its dot product straight from global memory.
#include "../plain_common.h"
#include "kgb_entries/aten/bmm.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void bmm(__global S* o, long oo, __global const S* x, long xo, __global const S* y, long yo, long B, long M,
                  long N, long K, long xb, long x0, long x1, long yb, long y0, long y1, long ob, long o0, long o1) {
  long w = get_global_id(0);
  if (w >= B * M * N) return;
  long b = w / (M * N), r = w - b * (M * N);
  long i = r / N, j = r - i * N;
  C acc = 0;
  for (long l = 0; l < K; ++l) acc += LOAD(x[xo + b * xb + i * x0 + l * x1]) * LOAD(y[yo + b * yb + l * y0 + j * y1]);
  o[oo + b * ob + i * o0 + j * o1] = STORE(acc);
}
)CLC";

int bmm(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  const cl_long B = self->sizes[0], M = self->sizes[1], K = self->sizes[2], N = mat2->sizes[2];
  if (B * M * N == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(self->dtype), "bmm");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).tensor(mat2).value(B).value(M).value(N).value(K);
  args.value(self->strides[0]).value(self->strides[1]).value(self->strides[2]);
  args.value(mat2->strides[0]).value(mat2->strides[1]).value(mat2->strides[2]);
  args.value(out->strides[0]).value(out->strides[1]).value(out->strides[2]);
  return args.error == CL_SUCCESS ? launch(stream, k, B * M * N) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_bmm, kKind, bmm);
}  // namespace kgb::opencl::plain
