// Reference for aten/pairwise_distance: ATen computes norm(x1 - x2 + eps, p,
// dim = -1 of the broadcast shape, keepdim) as three tensor ops, so the
// difference and the shifted difference are each rounded to the dtype (the
// rounding points of the original), then the p-norm of every row is taken in
// double and rounded once into out's dtype. p = 0 counts the nonzero
// entries (NaN counts), p = inf takes the largest |d| (NaN propagates).
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

std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> s(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t x = i + a.size() >= r ? a[i + a.size() - r] : 1;
    const int64_t y = i + b.size() >= r ? b[i + b.size() - r] : 1;
    if (x != y && x != 1 && y != 1) throw std::runtime_error("aten/pairwise_distance: x1 and x2 do not broadcast");
    s[i] = x == 1 ? y : x;
  }
  return s;
}

// Row-major linear index into t of broadcast position `pos` (right-aligned).
int64_t broadcast_index(const kgb::HostTensor& t, const std::vector<int64_t>& pos) {
  const size_t r = pos.size(), tr = static_cast<size_t>(t.rank());
  int64_t idx = 0;
  for (size_t d = 0; d < tr; ++d) {
    const int64_t size = t.sizes()[d];
    idx = idx * size + (size == 1 ? 0 : pos[d + r - tr]);
  }
  return idx;
}

void pairwise_distance_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& x1 = args.tensor("x1");
  const kgb::HostTensor& x2 = args.tensor("x2");
  kgb::HostTensor& out = args.tensor("out");
  const double p = args.scalar("p"), eps = args.scalar("eps");
  const bool keepdim = args.bool_scalar("keepdim");
  if (x1.dtype() != x2.dtype() || out.dtype() != x1.dtype()) throw std::runtime_error("aten/pairwise_distance: dtypes differ");
  if (!(p >= 0)) throw std::runtime_error("aten/pairwise_distance: the task covers p >= 0");
  const std::vector<int64_t> shape = broadcast_shape(x1.sizes(), x2.sizes());
  if (shape.empty()) throw std::runtime_error("aten/pairwise_distance: the task needs rank >= 1");
  std::vector<int64_t> out_shape(shape.begin(), shape.end() - 1);
  if (keepdim) out_shape.push_back(1);
  if (out.sizes() != out_shape) throw std::runtime_error("aten/pairwise_distance: out has the wrong shape");
  const int64_t D = shape.back();
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) rows *= shape[d];
  if (std::isinf(p) && D == 0 && rows > 0) throw std::runtime_error("aten/pairwise_distance: inf norm of an empty row");
  const std::vector<double> a = kgb::to_doubles(x1), b = kgb::to_doubles(x2);
  const kgb::DType dt = x1.dtype();
  std::vector<double> y(static_cast<size_t>(rows));
  kgb::parallel_chunks(rows, [&](int64_t first, int64_t last) {
    std::vector<int64_t> pos(shape.size());
    for (int64_t r = first; r < last; ++r) {
      int64_t q = r;
      for (size_t d = shape.size() - 1; d-- > 0;) {
        pos[d] = q % shape[d];
        q /= shape[d];
      }
      double acc = 0;
      for (int64_t k = 0; k < D; ++k) {
        pos.back() = k;
        const double diff = kgb::round_to(dt, a[static_cast<size_t>(broadcast_index(x1, pos))] -
                                                  b[static_cast<size_t>(broadcast_index(x2, pos))]);
        const double v = std::fabs(kgb::round_to(dt, diff + eps));
        if (p == 0) acc += v != 0 ? 1.0 : 0.0;  // NaN != 0: counts
        else if (std::isinf(p)) acc = (v > acc || std::isnan(v)) ? v : acc;
        else if (p == 1) acc += v;
        else if (p == 2) acc += v * v;
        else acc += std::pow(v, p);
      }
      if (p == 2) acc = std::sqrt(acc);
      else if (p != 0 && p != 1 && !std::isinf(p)) acc = std::pow(acc, 1.0 / p);
      y[static_cast<size_t>(r)] = acc;
    }
  });
  kgb::from_doubles(out, y);
}

// x2: where x1 has x2's shape, a third of the rows copy x1 exactly (the
// distance is then eps * D^(1/p): eps matters) and a fifth of the other
// elements copy x1's (ties that p = 0 must not count); the rest normal(0, 1).
// Broadcast shapes: normal(0, 1) everywhere. x1 is filled first (parameter order).
void x2_with_ties(kgb::GeneratorArgs& g) {
  kgb::HostTensor& t = g.tensor;
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> pick(0, 4);
  const auto it = g.filled.find("x1");
  const kgb::HostTensor* x1 = it == g.filled.end() ? nullptr : it->second;
  const bool same = x1 && x1->sizes() == t.sizes() && t.rank() > 0;
  const int64_t D = t.rank() > 0 ? t.sizes().back() : 1;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t row = D > 0 ? i / D : 0;
    if (same && (row % 3 == 0 || pick(g.rng) == 0)) t.set(i, x1->get(i));
    else t.set(i, normal(g.rng));
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/pairwise_distance", pairwise_distance_reference);
KGB_REGISTER_GENERATOR("aten/pairwise_distance/x1", kgb::reduction::values_with_specials);
KGB_REGISTER_GENERATOR("aten/pairwise_distance/x2", x2_with_ties);
