// aten/rrelu_with_noise, plain OpenCL baseline: one work-item per element;
// training draws the slope where x <= 0 from a splitmix64 hash of (seed,
// row-major index), in double as ATen's CPU kernel does; eval is leaky_relu
// with slope (lower + upper) / 2 in the compute type.
#include "../plain_common.h"
#include "kgb_entries/aten/rrelu_with_noise.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
ulong mix(ulong x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}
__kernel void rrelu(__global const S* x, long xo, __global S* nz, long no, __global S* o, long oo, Dims g, int rank, long n,
                    ulong key, double lower, double upper, int training) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  S xs = x[xo + a];
  C v = LOAD(xs);
  if (!training) {
    o[oo + c] = v > (C)0 ? xs : STORE(v * (C)((lower + upper) / 2));
  } else if (v <= (C)0) {
    double u = (double)((mix(key ^ mix((ulong)i)) >> 11) + 1) * 0x1.0p-53;
    S r = STORE((C)fmin(lower + u * (upper - lower), upper));
    nz[no + b] = r;
    o[oo + c] = STORE(v * LOAD(r));
  } else {
    nz[no + b] = STORE((C)1);
    o[oo + c] = xs;
  }
}
)CLC";

uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double value(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }

int rrelu_with_noise(const kgb_tensor* self, kgb_tensor* noise, kgb_scalar lower, kgb_scalar upper, int training,
                     int64_t seed, kgb_tensor* out, kgb_stream stream) {
  if (out->dtype != KGB_F32 && out->dtype != KGB_F64 && out->dtype != KGB_F16 && out->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Dims g;
  for (int d = 0; d < out->rank; ++d) g.add(out->sizes[d], self->strides[d], noise->strides[d], out->strides[d]);
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(out->dtype), "rrelu");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(self).tensor(noise).tensor(out).dims(g).value(g.count).value(static_cast<cl_ulong>(mix(static_cast<uint64_t>(seed))));
  args.value(static_cast<cl_double>(value(lower))).value(static_cast<cl_double>(value(upper))).value(static_cast<cl_int>(training != 0));
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

}  // namespace
KGB_BASELINE(aten_rrelu_with_noise, kKind, rrelu_with_noise);
}  // namespace kgb::opencl::plain
