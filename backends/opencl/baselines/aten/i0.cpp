// aten/i0, plain OpenCL baseline: one work-item per output element,
// out = I0(x) through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/i0.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(
// Modified Bessel function of the first kind, order 0. Power series
// sum_k ((x/2)^2)^k / (k!)^2 up to |x| = 15 (float) or 30 (double), where its
// positive terms converge quickly; above, the asymptotic expansion
// e^|x| / sqrt(2 pi |x|) * sum_k prod_{j<=k} (2j-1)^2 / (8 j |x|).
C bessel_i0(C x) {
  const bool dbl = sizeof(C) == 8;
  const C ax = fabs(x);
  if (ax <= (C)(dbl ? 30 : 15)) {
    const C q = (C)(0.25) * ax * ax;
    C term = 1, sum = 1;
    for (int k = 1; k < (dbl ? 120 : 60); ++k) {
      term *= q / (C)(k * k);
      sum += term;
      if (term <= sum * (C)(dbl ? 1e-17 : 1e-8)) break;
    }
    return sum;
  }
  const C inv8x = (C)(1) / ((C)(8) * ax);
  C term = 1, sum = 1;
  for (int k = 1; k <= (dbl ? 25 : 10); ++k) {
    term *= (C)((2 * k - 1) * (2 * k - 1)) * inv8x / (C)(k);
    sum += term;
  }
  // As ATen: +inf once e^|x| overflows the compute type, and inf / inf = NaN at |x| = inf.
  return exp(ax) * sum / sqrt((C)(6.283185307179586476925) * ax);
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
