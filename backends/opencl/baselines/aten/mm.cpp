// aten/mm, plain OpenCL baseline: one work-item per output element computes
// its dot product straight from global memory.
#include "../plain_common.h"
#include "kgb_entries/aten/mm.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void mm(__global S* o, long oo, __global const S* x, long xo, __global const S* y, long yo, long M, long N,
                 long K, long x0, long x1, long y0, long y1, long o0, long o1) {
  long w = get_global_id(0);
  if (w >= M * N) return;
  long i = w / N, j = w - i * N;
  C acc = 0;
  for (long l = 0; l < K; ++l) acc += LOAD(x[xo + i * x0 + l * x1]) * LOAD(y[yo + l * y0 + j * y1]);
  o[oo + i * o0 + j * o1] = STORE(acc);
}
)CLC";

int mm(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  const cl_long M = self->sizes[0], K = self->sizes[1], N = mat2->sizes[1];
  if (M * N == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(self->dtype), "mm");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).tensor(mat2).value(M).value(N).value(K);
  args.value(self->strides[0]).value(self->strides[1]).value(mat2->strides[0]).value(mat2->strides[1]);
  args.value(out->strides[0]).value(out->strides[1]);
  return args.error == CL_SUCCESS ? launch(stream, k, M * N) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_mm, kKind, mm);
}  // namespace kgb::opencl::plain
