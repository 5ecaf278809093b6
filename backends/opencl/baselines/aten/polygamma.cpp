// aten/polygamma, plain OpenCL baseline: one work-item per output element,
// out = psi^(n)(x) through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/polygamma.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(
// Bernoulli numbers B_2, B_4, ..., B_20 (the asymptotic series' coefficients).
__constant C kBernoulli[10] = {1.0 / 6,         -1.0 / 30,     1.0 / 42,        -1.0 / 30,
                                   5.0 / 66,        -691.0 / 2730, 7.0 / 6,         -3617.0 / 510,
                                   43867.0 / 798,   -174611.0 / 330};

// psi^(n)(x), x >= 0. Shift x up to SHIFT with the recurrence
// psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1), then the asymptotic
// expansion: n = 0: ln x - 1/(2x) - sum_k B_2k / (2k x^2k); n >= 1:
// (-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1)) + sum_k B_2k (2k+n-1)!/((2k)! x^(2k+n))].
// x = +0 gives digamma's -inf and the poles' +-inf through the 1/x terms.
C polygamma_pos(int n, C x) {
  const bool dbl = sizeof(C) == 8;
  const C shift = (C)(dbl ? 20 : 10);
  const int terms = dbl ? 10 : 6;
  if (n == 0) {
    C acc = 0;
    for (; x < shift; x += (C)(1)) acc -= (C)(1) / x;
    const C r = (C)(1) / (x * x);
    C series = 0, rk = r;
    for (int k = 1; k <= terms; ++k, rk *= r) series += (C)(kBernoulli[k - 1]) / (C)(2 * k) * rk;
    return acc + log(x) - (C)(0.5) / x - series;
  }
  C fact = 1;  // n!
  for (int j = 2; j <= n; ++j) fact *= (C)(j);
  C acc = 0;
  for (; x < shift; x += (C)(1)) {
    C xp = x;  // x^(n+1)
    for (int j = 0; j < n; ++j) xp *= x;
    acc += fact / xp;
  }
  C xn = x;  // x^n
  for (int j = 1; j < n; ++j) xn *= x;
  const C inv_x2 = (C)(1) / (x * x);
  C sum = fact / (C)(n) / xn + fact / ((C)(2) * xn * x);
  C a = fact * (C)(n + 1) / (C)(2) / (xn * x * x);  // (2k+n-1)!/(2k)! / x^(2k+n) for k = 1
  for (int k = 1; k <= terms; ++k) {
    sum += (C)(kBernoulli[k - 1]) * a;
    a *= (C)(2 * k + n) * (C)(2 * k + n + 1) / ((C)(2 * k + 1) * (C)(2 * k + 2)) * inv_x2;
  }
  const C sign = (n % 2) ? (C)(1) : (C)(-1);
  return sign * (acc + sum);
}

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
  return polygamma_pos((int)k, x);
}
)CLC");

int polygamma(int64_t n, const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  if (n < 0) return KGB_ERR_INVALID;
  unary::OpScalars s;
  s.k = n;
  return unary::run(self, out, stream, kSource, s);
}

}  // namespace
KGB_BASELINE(aten_polygamma, kKind, polygamma);
}  // namespace kgb::opencl::plain
