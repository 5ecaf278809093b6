// Reference, input generator and statistical check for aten/poisson:
// out[i] ~ Poisson(self[i]), independently.
//
// The reference is one correct sampler, keyed by (seed, logical index):
// inversion by sequential search below rate 10, Hoermann's transformed
// rejection (PTRS, 1993) from 10 on, both exact. Candidates are judged by the
// distribution of their output, never by equality with it:
//  - support: every value a finite integer >= 0, and exactly 0 where the rate
//    is 0;
//  - per rate level (quantile strata of the positive rates): a two-sample
//    Kolmogorov-Smirnov test against the reference's draws for the same rates
//    (both rounded into the dtype alike), the mean, the variance and the third
//    central moment of the draws (all equal to the rate; z-tests on exactly
//    representable counts, the third from rate 1 on: a rounded normal
//    approximation has none) and the share of zeros (expected sum of
//    exp(-rate));
//  - independence inside one call: standardised residuals (x - rate) /
//    sqrt(rate) of logical neighbours are uncorrelated;
//  - independence across seeds (first seed of every case): the output of
//    another seed has uncorrelated standardised residuals.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../random_check.h"
#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

using kgb::random_check::correlation;
using kgb::random_check::ks_distance;
using kgb::random_check::splitmix64;

// The uniform stream of one element: splitmix64 from a state keyed by the
// element's logical index; next() is uniform in (0, 1).
struct Stream {
  uint64_t state;
  double next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (static_cast<double>(z >> 11) + 0.5) * 0x1.0p-53;
  }
};

double poisson_draw(double lambda, Stream& s) {
  if (lambda == 0) return 0;
  if (lambda < 10) {
    // Inversion: the smallest k with F(k) >= u.
    const double u = s.next();
    double p = std::exp(-lambda), f = p;
    int64_t k = 0;
    while (u > f && k < 1000) {
      ++k;
      p *= lambda / static_cast<double>(k);
      f += p;
    }
    return static_cast<double>(k);
  }
  // PTRS: transformed rejection with squeeze (W. Hoermann, "The transformed
  // rejection method for generating Poisson random variables", 1993).
  const double slam = std::sqrt(lambda), loglam = std::log(lambda);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = s.next() - 0.5, v = s.next();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -lambda + k * loglam - std::lgamma(k + 1))
      return k;
  }
}

void poisson_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (self.sizes() != out.sizes()) throw std::runtime_error("aten/poisson: self and out differ in shape");
  const uint64_t key = splitmix64(static_cast<uint64_t>(args.int_scalar("seed")));
  const std::vector<double> rate = kgb::to_doubles(self);
  for (double r : rate)
    if (!(r >= 0) || !std::isfinite(r)) throw std::runtime_error("aten/poisson: rates must be finite and >= 0");
  std::vector<double> x(rate.size());
  kgb::parallel_chunks(static_cast<int64_t>(x.size()), [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      Stream s{key ^ splitmix64(static_cast<uint64_t>(i))};
      x[static_cast<size_t>(i)] = poisson_draw(rate[static_cast<size_t>(i)], s);
    }
  });
  kgb::from_doubles(out, x);
}

// Rates across every regime in one tensor: 1/16 exactly 0, 1/16 small
// integers 1..20 (where the rate itself is a valid count), the rest
// log-uniform over [1e-3, 3e4] (small < 1, medium, and large above 1e3, where
// samplers switch algorithms). Values are rounded into the dtype; the
// reference and the check read the stored rates. Tensors of fewer than 64
// elements (checked for support only) get rates in [100, 3e4], so that their
// expected output is never all zero.
void poisson_rates(kgb::GeneratorArgs& g) {
  std::vector<double> v(static_cast<size_t>(g.tensor.numel()));
  const bool tiny = v.size() < 64;
  for (double& r : v) {
    const uint64_t bits = g.rng();
    const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;
    const unsigned pick = static_cast<unsigned>(bits & 15);
    if (tiny) r = std::pow(10.0, 2 + u * (std::log10(3e4) - 2));
    else if (pick == 0) r = 0;
    else if (pick == 1) r = static_cast<double>(1 + static_cast<int>(u * 20));
    else r = std::pow(10.0, -3 + u * (3 + std::log10(3e4)));
  }
  kgb::from_doubles(g.tensor, v);
}

void fail(kgb::CaseCheck& c, const std::string& status, const std::string& message) {
  if (c.mismatches == 0) {
    c.status = status;
    c.message = message;
    c.output = "out";
  }
  ++c.mismatches;
}

// Largest rate whose draws the dtype stores exactly (integers up to 2^11 in
// f16, 2^8 in bf16): moment tests use only these, the distribution test all.
double exact_rate_limit(kgb::DType t) {
  switch (t) {
    case kgb::DType::F16: return 1000;
    case kgb::DType::BF16: return 100;
    default: return 1e7;
  }
}

constexpr int kStrata = 12;
constexpr double kSigmas = 6;  // z-tests: a false alarm about once in 5e8 tests
constexpr size_t kMaxChecked = size_t{1} << 20;  // a regular subsample beyond this

void poisson_check(const kgb::CheckContext& ctx, kgb::CaseCheck& c) {
  const kgb::HostTensor& got = ctx.got.tensor("out");
  const std::vector<double> rate = kgb::to_doubles(ctx.inputs.tensor("self"));
  const std::vector<double> x = kgb::to_doubles(got);
  const std::vector<double> want = kgb::to_doubles(ctx.expected.tensor("out"));
  const size_t n = x.size();
  c.checked += static_cast<int64_t>(n);
  for (size_t i = 0; i < n; ++i) {
    const bool ok = std::isfinite(x[i]) && x[i] >= 0 && x[i] == std::floor(x[i]) && (rate[i] != 0 || x[i] == 0);
    if (!ok) {
      std::ostringstream os;
      os << "every value must be a count (a finite integer >= 0), and 0 where the rate is 0; element " << i
         << " (row-major) is " << x[i] << " for rate " << rate[i];
      fail(c, "outside-support", os.str());
      return;
    }
  }
  // Positive-rate elements (a regular subsample of at most 2^20), by rate.
  const size_t step = std::max<size_t>(1, n / kMaxChecked);
  std::vector<size_t> idx;
  for (size_t i = 0; i < n; i += step)
    if (rate[i] > 0) idx.push_back(i);
  if (idx.size() < 64) return;  // too few draws for a distribution test
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return rate[a] < rate[b]; });
  const double limit = exact_rate_limit(got.dtype());
  const int strata = std::max(1, std::min<int>(kStrata, static_cast<int>(idx.size() / 200)));
  for (int s = 0; s < strata; ++s) {
    const size_t first = idx.size() * static_cast<size_t>(s) / static_cast<size_t>(strata);
    const size_t last = idx.size() * static_cast<size_t>(s + 1) / static_cast<size_t>(strata);
    const double lo = rate[idx[first]], hi = rate[idx[last - 1]];
    auto where = [&] {
      std::ostringstream os;
      os << " for rates in [" << lo << ", " << hi << "] (stratum " << s + 1 << " of " << strata << ", " << last - first
         << " draws)";
      return os.str();
    };
    std::vector<double> a, b;
    double sum_dev = 0, sum_rate = 0, sum_sq = 0, var_sq = 0, sum_cube = 0, var_cube = 0;
    double zeros = 0, zeros_expected = 0, zeros_var = 0;
    bool exact = true;
    for (size_t k = first; k < last; ++k) {
      const size_t i = idx[k];
      const double r = rate[i], d = x[i] - r;
      a.push_back(x[i]);
      b.push_back(want[i]);
      exact = exact && r <= limit;
      sum_dev += d, sum_rate += r;
      sum_sq += d * d - r, var_sq += r + 2 * r * r;                     // Var((X - r)^2) = r + 2 r^2
      sum_cube += d * d * d - r, var_cube += r + 24 * r * r + 15 * r * r * r;  // Var((X - r)^3) = mu6 - r^2
      const double p0 = std::exp(-r);
      zeros += x[i] == 0, zeros_expected += p0, zeros_var += p0 * (1 - p0);
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const double dist = ks_distance(a, b), critical = 3.5 * std::sqrt(2.0 / static_cast<double>(a.size()));
    if (dist > critical) {
      std::ostringstream os;
      os << "the draws do not follow Poisson(rate)" << where() << ": Kolmogorov-Smirnov distance " << dist
         << " from the reference sampler's draws (allowed " << critical << ")";
      fail(c, "statistics", os.str());
      return;
    }
    if (zeros_var > 4) {
      const double z = (zeros - zeros_expected) / std::sqrt(zeros_var);
      if (std::fabs(z) > kSigmas) {
        std::ostringstream os;
        os << zeros << " zeros" << where() << ", expected " << zeros_expected << " (sum of exp(-rate)): " << z
           << " standard errors off";
        fail(c, "statistics", os.str());
        return;
      }
    }
    if (!exact) continue;
    const double z_mean = sum_dev / std::sqrt(sum_rate), z_var = sum_sq / std::sqrt(var_sq);
    if (std::fabs(z_mean) > kSigmas || std::fabs(z_var) > kSigmas) {
      std::ostringstream os;
      os << "mean and variance must both equal the rate" << where() << ": the mean is " << z_mean
         << " and the variance " << z_var << " standard errors off (allowed " << kSigmas << ")";
      fail(c, "statistics", os.str());
      return;
    }
    if (lo < 1) continue;
    const double z_cube = sum_cube / std::sqrt(var_cube);
    if (std::fabs(z_cube) > kSigmas) {
      std::ostringstream os;
      os << "the third central moment must equal the rate (Poisson draws are skewed)" << where() << ": it is " << z_cube
         << " standard errors off (allowed " << kSigmas << ")";
      fail(c, "statistics", os.str());
      return;
    }
  }
  // Standardised residuals in logical order.
  auto residuals = [&](const std::vector<double>& v) {
    std::vector<double> e;
    for (size_t i = 0; i < n; i += step)
      if (rate[i] > 0) e.push_back((v[i] - rate[i]) / std::sqrt(rate[i]));
    return e;
  };
  const std::vector<double> e = residuals(x);
  const double root_m = std::sqrt(static_cast<double>(e.size() - 1));
  const double rho1 = correlation(std::span(e).first(e.size() - 1), std::span(e).subspan(1));
  if (std::fabs(rho1) * root_m > 5) {
    std::ostringstream os;
    os << "draws are not independent: neighbouring elements (row-major) have correlated deviations from their rates ("
       << rho1 << ")";
    fail(c, "statistics", os.str());
    return;
  }
  // The evaluator adds the output of another seed on the same case (first
  // seed of every case) as "out@other_seed"; elsewhere it is absent.
  const auto other = ctx.got.tensors.find("out@other_seed");
  if (other == ctx.got.tensors.end() || !other->second || static_cast<size_t>(other->second->numel()) != n) return;
  const double rho = correlation(e, residuals(kgb::to_doubles(*other->second)));
  if (std::fabs(rho) * std::sqrt(static_cast<double>(e.size())) > 5) {
    std::ostringstream os;
    os << "the outputs of two seeds are correlated (" << rho
       << " between their deviations from the rates): the seed must key an independent stream";
    fail(c, "seed-dependence", os.str());
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/poisson", poisson_reference);
KGB_REGISTER_GENERATOR("aten/poisson/self", poisson_rates);
KGB_REGISTER_CHECK("aten/poisson", poisson_check);
