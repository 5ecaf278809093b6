// Reference for aten/renorm: per slice self.select(dim, i), its p-norm over
// every other dimension in double; slices whose norm exceeds maxnorm are
// scaled by maxnorm / (norm + 1e-7). As ATen does, the factor is rounded to
// self's dtype first (ATen keeps it in a tensor of self's dtype), then the
// product x * factor is rounded once to out's dtype.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "../reduction_inputs.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

// Row-major geometry around dim: element (o, s, i) has linear index
// (o * slices + s) * inner + i; slice s holds every (o, i).
struct Around {
  int64_t outer = 1, slices = 1, inner = 1;
};

Around around(const kgb::HostTensor& t, int64_t dim) {
  Around a;
  for (int d = 0; d < t.rank(); ++d) {
    if (d < dim) a.outer *= t.sizes()[d];
    else if (d == dim) a.slices = t.sizes()[d];
    else a.inner *= t.sizes()[d];
  }
  return a;
}

int64_t wrap_dim(int64_t dim, int rank, const char* task) {
  if (rank < 2) throw std::runtime_error(std::string(task) + ": self needs at least 2 dimensions");
  if (dim < -rank || dim >= rank) throw std::runtime_error(std::string(task) + ": dim out of range");
  return dim < 0 ? dim + rank : dim;
}

// ||v||_p for p > 0 (p = inf: max |v|); NaN propagates.
template <typename Get>
double p_norm(int64_t n, double p, Get&& get) {
  if (std::isinf(p)) {
    double m = 0;
    for (int64_t k = 0; k < n; ++k) {
      const double a = std::fabs(get(k));
      if (std::isnan(a)) return a;
      m = a > m ? a : m;
    }
    return m;
  }
  double acc = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double a = std::fabs(get(k));
    acc += p == 1 ? a : p == 2 ? a * a : std::pow(a, p);
  }
  return p == 1 ? acc : p == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / p);
}

void renorm_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (out.sizes() != self.sizes() || out.dtype() != self.dtype())
    throw std::runtime_error("aten/renorm: out differs from self in shape or dtype");
  const double p = args.scalar("p");
  const double maxnorm = args.scalar("maxnorm");
  if (!(p > 0)) throw std::runtime_error("aten/renorm: p must be > 0");
  if (!(maxnorm >= 0)) throw std::runtime_error("aten/renorm: maxnorm must be >= 0");
  const int64_t dim = wrap_dim(args.int_scalar("dim"), self.rank(), "aten/renorm");
  const Around g = around(self, dim);
  const std::vector<double> x = kgb::to_doubles(self);
  std::vector<double> y(x.size());
  const int64_t per_slice = g.outer * g.inner;
  kgb::parallel_chunks(g.slices, [&](int64_t first, int64_t last) {
    for (int64_t s = first; s < last; ++s) {
      auto at = [&](int64_t k) {  // k-th element of slice s, k = o * inner + i
        const int64_t o = k / g.inner, i = k % g.inner;
        return static_cast<size_t>((o * g.slices + s) * g.inner + i);
      };
      const double norm = p_norm(per_slice, p, [&](int64_t k) { return x[at(k)]; });
      double factor = norm > maxnorm ? maxnorm / (norm + 1e-7) : 1.0;
      factor = kgb::round_to(self.dtype(), factor);
      for (int64_t k = 0; k < per_slice; ++k) y[at(k)] = x[at(k)] * factor;
    }
  });
  kgb::from_doubles(out, y);
}

// normal(0, 1) values; then every slice along dim is rescaled so that its
// p-norm is maxnorm * 2^u, u uniform in [-1, -0.05] or [0.05, 1]: about half
// of the slices are above maxnorm, and none is so close that float and double
// norms could disagree on which side it lies. Then the case's "specials"
// (NaN / -inf / +inf, reduction_inputs.h).
void slice_scaled_values(kgb::GeneratorArgs& g) {
  kgb::HostTensor& t = g.tensor;
  std::normal_distribution<double> normal(0.0, 1.0);
  const int64_t n = t.numel();
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& e : v) e = normal(g.rng);
  const double p = g.scalars.at("p").number().value_or(2), maxnorm = g.scalars.at("maxnorm").number().value_or(0);
  const int64_t dim = wrap_dim(g.scalars.at("dim").i, t.rank(), "aten/renorm");
  const Around a = around(t, dim);
  std::uniform_real_distribution<double> side(0.05, 1.0);
  for (int64_t s = 0; s < a.slices && maxnorm > 0; ++s) {
    auto at = [&](int64_t k) { return static_cast<size_t>((k / a.inner * a.slices + s) * a.inner + k % a.inner); };
    const int64_t count = a.outer * a.inner;
    const double norm = p_norm(count, p, [&](int64_t k) { return v[at(k)]; });
    if (!(norm > 0)) continue;
    const double u = (g.rng() & 1) ? side(g.rng) : -side(g.rng);
    const double scale = maxnorm * std::exp2(u) / norm;
    for (int64_t k = 0; k < count; ++k) v[at(k)] *= scale;
  }
  for (int64_t i = 0; i < n; ++i) t.set(i, v[static_cast<size_t>(i)]);
  const int64_t k = kgb::reduction::case_dim(g, "specials");
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::infinity()};
  std::uniform_int_distribution<int64_t> pick(0, n > 0 ? n - 1 : 0);
  for (int64_t j = 0; j < k && n > 0; ++j) t.set(pick(g.rng), specials[j % 3]);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/renorm", renorm_reference);
KGB_REGISTER_GENERATOR("aten/renorm/self", slice_scaled_values);
