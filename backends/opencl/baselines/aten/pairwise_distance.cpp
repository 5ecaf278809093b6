// aten/pairwise_distance, plain OpenCL baseline: one work-item per output
// element walks its row of the broadcast x1 - x2 + eps (each step rounded to
// the dtype, as ATen's separate tensor ops are) and takes the p-norm.
#include <cmath>

#include "../plain_common.h"
#include "kgb_entries/aten/pairwise_distance.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void pairwise(__global S* o, long oo, __global const S* x1, long o1, __global const S* x2, long o2, Dims g,
                       int rank, long rows, long D, long k1, long k2, int norm, double p, double eps) {
  long r = get_global_id(0);
  if (r >= rows) return;
  long a, b, c, d;
  offsets(&g, rank, r, &a, &b, &c, &d);
  C acc = 0;
  for (long k = 0; k < D; ++k) {
    C v = LOAD(STORE(LOAD(x1[o1 + b + k * k1]) - LOAD(x2[o2 + c + k * k2])));
    v = LOAD(STORE(v + (C)eps));
    C m = fabs(v);
    if (norm == 0) acc += v != (C)0 ? (C)1 : (C)0;
    else if (norm == 3) acc = (m > acc || isnan(m)) ? m : acc;
    else acc += norm == 1 ? m : norm == 2 ? m * m : pow(m, (C)p);
  }
  C n = norm == 2 ? sqrt(acc) : norm == 4 ? pow(acc, (C)(1.0 / p)) : acc;
  o[oo + a] = STORE(n);
}
)CLC";

int pairwise_distance(const kgb_tensor* x1, const kgb_tensor* x2, double p, double eps, int keepdim, kgb_tensor* out,
                      kgb_stream stream) {
  if (x1->dtype != KGB_F32 && x1->dtype != KGB_F64 && x1->dtype != KGB_F16 && x1->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  (void)keepdim;  // out's shape already says it
  const int rank = x1->rank > x2->rank ? x1->rank : x2->rank;
  Dims g;
  cl_long D = 0, k1 = 0, k2 = 0;
  for (int d = 0; d < rank; ++d) {
    const int i1 = d - (rank - x1->rank), i2 = d - (rank - x2->rank);
    const int64_t n1 = i1 >= 0 ? x1->sizes[i1] : 1, n2 = i2 >= 0 ? x2->sizes[i2] : 1;
    const cl_long a = (i1 >= 0 && n1 != 1) ? x1->strides[i1] : 0, b = (i2 >= 0 && n2 != 1) ? x2->strides[i2] : 0;
    if (d + 1 == rank) {
      D = n1 == 1 ? n2 : n1;
      k1 = a;
      k2 = b;
    } else {
      g.add(n1 == 1 ? n2 : n1, out->strides[d], a, b);
    }
  }
  if (g.count == 0) return KGB_OK;
  const cl_int norm = p == 0 ? 0 : std::isinf(p) ? 3 : p == 1 ? 1 : p == 2 ? 2 : 4;
  cl_kernel k = kernel(stream, kSource, dtype_options(x1->dtype), "pairwise");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(x1).tensor(x2).dims(g).value(g.count).value(D).value(k1).value(k2);
  args.value(norm).value(p).value(eps);
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_pairwise_distance, kKind, pairwise_distance);
}  // namespace kgb::opencl::plain
