// aten/poisson, plain OpenCL baseline: one work-item per element, a
// splitmix64 stream keyed by (seed, row-major index), inversion below rate 10
// and Hoermann's PTRS rejection above, in double (ATen's CPU sampler's
// methods).
#include "../plain_common.h"
#include "kgb_entries/aten/poisson.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
ulong mix(ulong x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}
double uniform(ulong* s) {
  *s += 0x9E3779B97F4A7C15UL;
  ulong z = *s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) * 0x1.0p-53;
}
double draw(double rate, ulong s) {
  if (rate == 0.0) return 0.0;
  if (rate < 10.0) {
    double u = uniform(&s), p = exp(-rate), f = p;
    int k = 0;
    while (u > f && k < 1000) { ++k; p *= rate / k; f += p; }
    return (double)k;
  }
  double slam = sqrt(rate), loglam = log(rate);
  double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  double lia = log(1.1239 + 1.1328 / (b - 3.4)), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    double u = uniform(&s) - 0.5, v = uniform(&s);
    double us = 0.5 - fabs(u);
    double k = floor((2.0 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (log(v) + lia - log(a / (us * us) + b) <= -rate + k * loglam - lgamma(k + 1.0)) return k;
  }
}
__kernel void poisson(__global const S* x, long xo, __global S* o, long oo, Dims g, int rank, long n, ulong key) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  double k = draw((double)LOAD(x[xo + a]), key ^ mix((ulong)i));
#if KGB_DT == 7
  o[oo + b] = k;
#else
  o[oo + b] = STORE((float)k);
#endif
}
)CLC";

uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

int poisson(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (out->dtype != KGB_F32 && out->dtype != KGB_F64 && out->dtype != KGB_F16 && out->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Dims g;
  for (int d = 0; d < out->rank; ++d) g.add(out->sizes[d], self->strides[d], out->strides[d]);
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(out->dtype), "poisson");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(self).tensor(out).dims(g).value(g.count).value(static_cast<cl_ulong>(mix(static_cast<uint64_t>(seed))));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_poisson, kKind, poisson);
}  // namespace kgb::opencl::plain
