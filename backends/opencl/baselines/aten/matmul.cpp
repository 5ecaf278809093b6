// aten/matmul, plain OpenCL baseline: ATen's rank rules reduced to a batch
// of M x K by K x N products (a 1-D self is one row, a 1-D other one column,
// batch dims broadcast with stride 0); one work-item per output element
// computes its dot product straight from global memory.
#include "../plain_common.h"
#include "kgb_entries/aten/matmul.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void matmul(__global S* o, long oo, __global const S* x, long xo, __global const S* y, long yo, Dims g, int rank,
                     long batches, long M, long N, long K, long x0, long x1, long y0, long y1, long o0, long o1) {
  long w = get_global_id(0);
  if (w >= batches * M * N) return;
  long q = w / (M * N), r = w - q * (M * N);
  long i = r / N, j = r - i * N;
  long xb, yb, ob, unused;
  offsets(&g, rank, q, &xb, &yb, &ob, &unused);
  C acc = 0;
  for (long l = 0; l < K; ++l) acc += LOAD(x[xo + xb + i * x0 + l * x1]) * LOAD(y[yo + yb + l * y0 + j * y1]);
  o[oo + ob + i * o0 + j * o1] = STORE(acc);
}
)CLC";

int matmul(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  const int r1 = self->rank, r2 = other->rank;
  if (r1 < 1 || r2 < 1) return KGB_ERR_INVALID;
  const cl_long K = self->sizes[r1 - 1];
  const cl_long M = r1 >= 2 ? self->sizes[r1 - 2] : 1, N = r2 >= 2 ? other->sizes[r2 - 1] : 1;
  const cl_long x0 = r1 >= 2 ? self->strides[r1 - 2] : 0, x1 = self->strides[r1 - 1];
  const cl_long y0 = r2 >= 2 ? other->strides[r2 - 2] : other->strides[0], y1 = r2 >= 2 ? other->strides[r2 - 1] : 0;
  const int bs = r1 > 2 ? r1 - 2 : 0, bo = r2 > 2 ? r2 - 2 : 0, br = bs > bo ? bs : bo;
  Dims g;  // batch dims: s0 = self's strides, s1 = other's, s2 = out's (0 where broadcast)
  for (int d = 0; d < br; ++d) {
    const int ds = d - (br - bs), dob = d - (br - bo);
    const cl_long s = ds >= 0 ? self->sizes[ds] : 1, o = dob >= 0 ? other->sizes[dob] : 1;
    g.add(s == 1 ? o : s, s == 1 ? 0 : self->strides[ds], o == 1 ? 0 : other->strides[dob], out->strides[d]);
  }
  const cl_long o0 = r1 >= 2 ? out->strides[br] : 0, o1 = r2 >= 2 ? out->strides[out->rank - 1] : 0;
  if (g.count * M * N == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(self->dtype), "matmul");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).tensor(other).dims(g).value(g.count).value(M).value(N).value(K);
  args.value(x0).value(x1).value(y0).value(y1).value(o0).value(o1);
  return args.error == CL_SUCCESS ? launch(stream, k, g.count * M * N) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_matmul, kKind, matmul);
}  // namespace kgb::opencl::plain
