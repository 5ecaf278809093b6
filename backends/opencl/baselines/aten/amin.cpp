// aten/amin, plain OpenCL baseline: one work-item per output element walks
// its slice (NaN propagating).
#include "kgb_entries/aten/amin.h"
#include "reduction_plain.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void amin(__global S* o, long oo, __global const S* x, long xo, Dims kept, int krank, Dims red, int rrank,
                   long outputs, long len) {
  long s = get_global_id(0);
  if (s >= outputs) return;
  long a, b, c, d;
  offsets(&kept, krank, s, &a, &b, &c, &d);
  C m = LOAD(x[xo + b]);
  for (long k = 1; k < len; ++k) {
    long e, f, g, h;
    offsets(&red, rrank, k, &e, &f, &g, &h);
    C v = LOAD(x[xo + b + e]);
    if (m == m && (v != v || v < m)) m = v;
  }
  o[oo + a] = STORE(m);
}
)CLC";

int amin(const kgb_tensor* self, kgb_int_list dim, int keepdim, kgb_tensor* out, kgb_stream stream) {
  const reduction::Walks w = reduction::walks(self, out, dim.values, dim.count, keepdim != 0);
  const Dims& kept = w.kept;
  const Dims& red = w.red;
  if (kept.count == 0) return KGB_OK;
  if (red.count == 0) return KGB_ERR_INVALID;
  cl_kernel k = kernel(stream, kSource, dtype_options(self->dtype), "amin");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).dims(kept).dims(red).value(kept.count).value(red.count);
  return args.error == CL_SUCCESS ? launch(stream, k, kept.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_amin, kKind, amin);
}  // namespace kgb::opencl::plain
