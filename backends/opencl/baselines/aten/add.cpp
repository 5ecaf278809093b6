// aten/add, plain OpenCL baseline: one work-item per output element with the
// broadcast strides of both inputs.
#include "../plain_common.h"
#include "kgb_entries/aten/add.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
#if KGB_DT == 2 || KGB_DT == 3
#define COMBINE(x, y, a) STORE(LOAD(x) + (a) * LOAD(y))
typedef long A;
#elif KGB_DT == 7
#define COMBINE(x, y, a) STORE(LOAD(x) + (a) * LOAD(y))
typedef double A;
#else
#define COMBINE(x, y, a) STORE(LOAD(x) + (a) * LOAD(y))
typedef float A;
#endif
__kernel void add(__global S* o, long oo, __global const S* x, long xo, __global const S* y, long yo, Dims g, int rank,
                  long n, A alpha) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  o[oo + a] = COMBINE(x[xo + b], y[yo + c], alpha);
}
)CLC";

int add(const kgb_tensor* self, const kgb_tensor* other, kgb_scalar alpha_scalar, kgb_tensor* out, kgb_stream stream) {
  const double alpha = alpha_scalar.dtype == KGB_F64 ? alpha_scalar.v.f : static_cast<double>(alpha_scalar.v.i);
  Dims g;
  for (int d = 0; d < out->rank; ++d) {
    int ds = d - (out->rank - self->rank), dt = d - (out->rank - other->rank);
    cl_long sa = ds >= 0 && self->sizes[ds] != 1 ? self->strides[ds] : 0;
    cl_long sb = dt >= 0 && other->sizes[dt] != 1 ? other->strides[dt] : 0;
    g.add(out->sizes[d], out->strides[d], sa, sb);
  }
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(out->dtype), "add");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).tensor(other).dims(g).value(g.count);
  if (out->dtype == KGB_F64) args.value(static_cast<cl_double>(alpha));
  else if (out->dtype == KGB_I32 || out->dtype == KGB_I64) args.value(static_cast<cl_long>(alpha));
  else args.value(static_cast<cl_float>(alpha));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_add, kKind, add);
}  // namespace kgb::opencl::plain
