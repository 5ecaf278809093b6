// aten/exponential_, plain OpenCL baseline: one work-item per element, a
// splitmix64 hash of (seed, row-major index) turned into -log(u) / lambd.
#include "../plain_common.h"
#include "kgb_entries/aten/exponential_.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
ulong mix(ulong x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}
__kernel void exponential(__global S* o, long oo, Dims g, int rank, long n, ulong seed, double inv) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  ulong r = mix(seed ^ mix((ulong)i));
#if KGB_DT == 7
  o[oo + a] = -log((double)((r >> 11) + 1) * 0x1.0p-53) * inv;
#else
  o[oo + a] = STORE(-log((float)((r >> 40) + 1) * 0x1.0p-24f) * (float)inv);
#endif
}
)CLC";

int exponential(kgb_tensor* self, double lambd, int64_t seed, kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  if (!(lambd > 0)) return KGB_ERR_INVALID;
  Dims g;
  for (int d = 0; d < self->rank; ++d) g.add(self->sizes[d], self->strides[d]);
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(self->dtype), "exponential");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(self).dims(g).value(g.count).value(static_cast<cl_ulong>(seed)).value(static_cast<cl_double>(1.0 / lambd));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_exponential_, kKind, exponential);
}  // namespace kgb::opencl::plain
