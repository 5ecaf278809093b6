// aten/i0, plain OpenCL baseline: one work-item per output element,
// out = I0(x) through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/i0.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(
// Modified Bessel function of the first kind, order 0.
// float: the polynomial approximations of Abramowitz & Stegun 9.8.1 (|x| < 3.75)
// and 9.8.2 (above; e^-|x| sqrt(|x|) I0 in powers of 3.75/|x|), relative error
// below 1e-6 in float: a few multiply-adds and one exp, no data-dependent loop.
// double: the power series sum_k ((x/2)^2)^k / (k!)^2 up to |x| = 30, the
// asymptotic expansion e^|x| / sqrt(2 pi |x|) * sum_k prod_{j<=k} (2j-1)^2 / (8 j |x|)
// above. Both multiply e^|x| last, as ATen does: +inf exactly when e^|x|
// overflows the compute type, NaN at |x| = inf (inf * 0).
C bessel_i0(C x) {
  const C ax = fabs(x);
  if (sizeof(C) == 4) {
    if (ax < (C)(3.75)) {
      C t = ax / (C)(3.75);
      t *= t;
      return (C)(1) + t * ((C)(3.5156229) + t * ((C)(3.0899424) + t * ((C)(1.2067492) + t * ((C)(0.2659732) +
             t * ((C)(0.0360768) + t * (C)(0.0045813))))));
    }
    const C u = (C)(3.75) / ax;
    const C p = (C)(0.39894228) + u * ((C)(0.01328592) + u * ((C)(0.00225319) + u * ((C)(-0.00157565) + u * ((C)(0.00916281) +
                u * ((C)(-0.02057706) + u * ((C)(0.02635537) + u * ((C)(-0.01647633) + u * (C)(0.00392377))))))));
    return exp(ax) * (p / sqrt(ax));
  }
  if (ax <= (C)(30)) {
    const C q = (C)(0.25) * ax * ax;
    C term = 1, sum = 1;
    for (int k = 1; k < 120; ++k) {
      term *= q / (C)(k * k);
      sum += term;
      if (term <= sum * (C)(1e-17)) break;
    }
    return sum;
  }
  const C inv8x = (C)(1) / ((C)(8) * ax);
  C term = 1, sum = 1;
  for (int k = 1; k <= 25; ++k) {
    term *= (C)((2 * k - 1) * (2 * k - 1)) * inv8x / (C)(k);
    sum += term;
  }
  return exp(ax) * (sum / sqrt((C)(6.283185307179586476925) * ax));
}

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
  return bessel_i0(x);
}
)CLC");

int i0(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return unary::run(self, out, stream, kSource, {});
}

}  // namespace
KGB_BASELINE(aten_i0, kKind, i0);
}  // namespace kgb::opencl::plain
