// aten/bernoulli, plain OpenCL baseline: one work-item per element, a
// splitmix64 hash of (seed, row-major index) compared with p.
#include "../plain_common.h"
#include "kgb_entries/aten/bernoulli.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
ulong mix(ulong x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}
__kernel void bernoulli(__global S* o, long oo, __global const S* p, long po, Dims g, int rank, long n, ulong seed) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  ulong r = mix(seed + mix((ulong)i));
  float u = (float)(r >> 40) * 0x1.0p-24f;
  o[oo + a] = STORE(u < (float)LOAD(p[po + b]) ? 1.0f : 0.0f);
}
)CLC";

int bernoulli(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  Dims g;
  for (int d = 0; d < out->rank; ++d) g.add(out->sizes[d], out->strides[d], self->strides[d]);
  if (g.count == 0) return KGB_OK;
  if (out->dtype != KGB_F32 && out->dtype != KGB_F64 && out->dtype != KGB_F16 && out->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  cl_kernel k = kernel(stream, kSource, dtype_options(out->dtype), "bernoulli");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(out).tensor(self).dims(g).value(g.count).value(static_cast<cl_ulong>(seed));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_bernoulli, kKind, bernoulli);
}  // namespace kgb::opencl::plain
