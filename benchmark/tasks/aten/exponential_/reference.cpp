// Reference and statistical check for aten/exponential_: fill self with
// independent draws from the exponential distribution of rate lambd.
//
// The reference is one correct sampler (splitmix64 keyed by (seed, logical
// index), x = -log(u) / lambd with u uniform in (0, 1]); candidates are judged
// by the distribution of their output, not by equality with it:
//  - support: every value finite and >= 0;
//  - shape: a Kolmogorov-Smirnov bound over 4096 equiprobable bins of
//    Exp(lambd), allowing each value the rounding of its dtype;
//  - mean within 6 standard errors of 1 / lambd;
//  - independence inside one call: the correlation of logical neighbours (lag
//    1) and of elements one innermost row apart stays within 5 / sqrt(n);
//  - independence across seeds (first seed of every case): the same inputs
//    under another seed may repeat a value no more often than the dtype's
//    rounding makes likely, and the two outputs are uncorrelated.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void exponential_reference(kgb::RefArgs& args) {
  kgb::HostTensor& self = args.tensor("self");
  const double lambd = args.scalar("lambd");
  if (!(lambd > 0)) throw std::runtime_error("aten/exponential_: lambd must be positive");
  const uint64_t key = splitmix64(static_cast<uint64_t>(args.int_scalar("seed")));
  std::vector<double> x(static_cast<size_t>(self.numel()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double u = static_cast<double>((splitmix64(key ^ splitmix64(i)) >> 11) + 1) * 0x1.0p-53;  // (0, 1]
    x[i] = -std::log(u) / lambd;
  }
  kgb::from_doubles(self, x);
}

// Relative half-ulp of a dtype and half its smallest subnormal step: a stored
// value v stands for a true draw within v * (1 +- rel) +- abs.
struct Rounding {
  double rel, abs;
};
Rounding rounding_of(kgb::DType t) {
  switch (t) {
    case kgb::DType::F16: return {0x1.0p-11, 0x1.0p-25};
    case kgb::DType::BF16: return {0x1.0p-8, 0x1.0p-134};
    case kgb::DType::F32: return {0x1.0p-24, 0x1.0p-150};
    default: return {0x1.0p-53, 0};
  }
}

// Probability that two independent draws round to the same stored value:
// about rel / 2 for any rate (the integral of f(x)^2 * 2 rel x dx), and zero
// in practice for f32 and f64.
double collision_probability(kgb::DType t) {
  switch (t) {
    case kgb::DType::F16: return 0x1.0p-12;
    case kgb::DType::BF16: return 0x1.0p-9;
    default: return 0;
  }
}

double correlation(const std::vector<double>& a, size_t a0, const std::vector<double>& b, size_t b0, size_t n) {
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) ma += a[a0 + i], mb += b[b0 + i];
  ma /= static_cast<double>(n), mb /= static_cast<double>(n);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    const double da = a[a0 + i] - ma, db = b[b0 + i] - mb;
    sab += da * db, saa += da * da, sbb += db * db;
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 1.0;
}

void fail(kgb::CaseCheck& c, const std::string& status, const std::string& message) {
  if (c.mismatches == 0) {
    c.status = status;
    c.message = message;
    c.output = "self";
  }
  ++c.mismatches;
}

void exponential_check(const kgb::CheckContext& ctx, kgb::CaseCheck& c) {
  const kgb::HostTensor& got = ctx.got.tensor("self");
  const double lambd = ctx.inputs.scalar("lambd");
  const std::vector<double> x = kgb::to_doubles(got);
  const size_t n = x.size();
  c.checked += static_cast<int64_t>(n);
  for (size_t i = 0; i < n; ++i)
    if (!(std::isfinite(x[i]) && x[i] >= 0)) {
      std::ostringstream os;
      os << "every value must be a finite draw >= 0; element " << i << " (row-major) is " << x[i];
      fail(c, "outside-support", os.str());
      return;
    }
  if (n < 64) return;  // too few draws for a distribution test
  const double root_n = std::sqrt(static_cast<double>(n));

  // Kolmogorov-Smirnov over B equiprobable bins: G(e_k), the share of values
  // below the k-th edge, must lie near [F(e_k - h), F(e_k + h)] (h: rounding).
  constexpr int B = 4096;
  std::vector<int64_t> count(B, 0);
  for (double v : x) count[static_cast<size_t>(std::min<double>(B - 1, std::floor(-std::expm1(-lambd * v) * B)))] += 1;
  const Rounding r = rounding_of(got.dtype());
  double d = 0;
  int64_t below = 0;
  for (int k = 1; k < B; ++k) {
    below += count[static_cast<size_t>(k - 1)];
    const double e = -std::log1p(-static_cast<double>(k) / B) / lambd, h = r.rel * e + r.abs;
    const double g = static_cast<double>(below) / static_cast<double>(n);
    const double lo = -std::expm1(-lambd * std::max(0.0, e - h)), hi = -std::expm1(-lambd * (e + h));
    d = std::max({d, g - hi, lo - g});
  }
  if (d * root_n > 2.5) {
    std::ostringstream os;
    os << "the values do not follow Exp(" << lambd << "): Kolmogorov-Smirnov distance " << d << " (sqrt(n) * D = "
       << d * root_n << ", allowed 2.5)";
    fail(c, "statistics", os.str());
    return;
  }
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(n);
  if (std::fabs(mean - 1 / lambd) * lambd * root_n > 6) {
    std::ostringstream os;
    os << "sample mean " << mean << " is " << std::fabs(mean - 1 / lambd) * lambd * root_n
       << " standard errors from 1 / lambd = " << 1 / lambd << " (allowed 6)";
    fail(c, "statistics", os.str());
    return;
  }
  // Neighbours in logical order, and elements one innermost row apart.
  const size_t row = got.rank() > 0 ? static_cast<size_t>(got.size(-1)) : 1;
  for (size_t lag : {size_t{1}, row}) {
    if (lag == 0 || n - lag < 64 || (lag == row && row == 1)) continue;
    const double rho = correlation(x, 0, x, lag, n - lag);
    if (std::fabs(rho) * std::sqrt(static_cast<double>(n - lag)) > 5) {
      std::ostringstream os;
      os << "draws are not independent: elements " << lag << " apart (row-major) have correlation " << rho;
      fail(c, "statistics", os.str());
      return;
    }
  }
  // The evaluator adds the output of another seed on the same case (first
  // seed of every case) as "self@other_seed"; elsewhere it is absent.
  const auto other = ctx.got.tensors.find("self@other_seed");
  if (other == ctx.got.tensors.end() || !other->second) return;
  const std::vector<double> y = kgb::to_doubles(*other->second);
  if (y.size() != n) return;
  int64_t equal = 0;
  for (size_t i = 0; i < n; ++i) equal += x[i] == y[i];
  const double p = collision_probability(got.dtype());
  const double allowed = p * static_cast<double>(n) + 6 * std::sqrt(p * static_cast<double>(n)) + 3;
  if (static_cast<double>(equal) > allowed) {
    std::ostringstream os;
    os << "another seed repeats " << equal << " of " << n << " values at the same positions (independent draws "
       << "repeat about " << p * static_cast<double>(n) << ")";
    fail(c, "seed-dependence", os.str());
    return;
  }
  const double rho = correlation(x, 0, y, 0, n);
  if (std::fabs(rho) * root_n > 5) {
    std::ostringstream os;
    os << "the outputs of two seeds are correlated (" << rho << "): the seed must key an independent stream";
    fail(c, "seed-dependence", os.str());
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/exponential_", exponential_reference);
KGB_REGISTER_CHECK("aten/exponential_", exponential_check);
