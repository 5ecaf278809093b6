// aten/renorm on the CPU: every slice self.select(dim, s) whose p-norm exceeds
// maxnorm is scaled by maxnorm / (norm + 1e-7).
//
// self is seen as [outer, S, inner] around dim (S slices). Two phases:
//  1. norms: per-slice sums of |x|^p (max |x| for p = inf) in double.
//     Contiguous self, inner >= 16: work items (slice, outer index, chunk of
//     the inner run) each reduce one contiguous run with SIMD; the partial
//     sums are combined in a fixed order. Contiguous self, inner < 16 (dim
//     last, or 200x40999x3 over the middle): one accumulator per position of
//     the contiguous [S, inner] slab, added to flat and vectorised over the
//     outer index, then folded over inner. Any other layout: each thread
//     walks whole slices through the strides.
//  2. scale: factor per slice in float (double for f64), rounded to self's
//     dtype as ATen keeps it; out = x * factor rounded once. Contiguous self
//     and out use flat SIMD loops, otherwise a strided walk.
// Every partial is combined in a fixed order: the result is deterministic.
#include <math.h>
#include <omp.h>
#include <stdint.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

struct F32 {
  using S = float; using C = float;
  static C to(S v) { return v; }
  static S from(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  static C to(S v) { return v; }
  static S from(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  static C to(S v) { return kgb_f16_to_float(v); }
  static S from(C v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  static C to(S v) { return kgb_bf16_to_float(v); }
  static S from(C v) { return kgb_float_to_bf16(v); }
};

enum class Norm { L1, L2, Max, Pow };

// One term of the norm and how terms combine.
template <Norm N>
inline double term(double a, double p) {
  if (N == Norm::L1) return fabs(a);
  if (N == Norm::L2) return a * a;
  if (N == Norm::Max) return fabs(a);
  return pow(fabs(a), p);
}
template <Norm N>
inline double combine(double acc, double t) {
  if (N == Norm::Max) return (t > acc || t != t) ? t : acc;  // NaN sticks
  return acc + t;
}
template <Norm N>
inline double finish(double acc, double p) {
  if (N == Norm::L2) return sqrt(acc);
  if (N == Norm::Pow) return pow(acc, 1.0 / p);
  return acc;
}

// Geometry: the non-dim dimensions (outer ones first) with self and out strides.
struct Geometry {
  int64_t outer = 1, slices = 1, inner = 1;
  int nd = 0;
  int64_t size[KGB_MAX_RANK], xs[KGB_MAX_RANK], ys[KGB_MAX_RANK];
  int64_t x_dim = 0, y_dim = 0;  // strides along dim
  bool x_contiguous = true, y_contiguous = true;
};

bool is_row_major(const kgb_tensor* t) {
  int64_t expect = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

template <typename K, Norm N>
void slice_sums_contiguous(const Geometry& g, const typename K::S* x, double p, double* acc) {
  const int64_t S = g.slices, I = g.inner, O = g.outer;
  if (I >= 16) {
    // Work items: (slice, outer index, chunk of the inner run).
    const int64_t chunk = 16384, chunks = (I + chunk - 1) / chunk;
    const int64_t items = S * O * chunks;
    std::vector<double> part(static_cast<size_t>(items));
#pragma omp parallel for schedule(static) if (S * O * I > 32768)
    for (int64_t t = 0; t < items; ++t) {
      const int64_t c = t % chunks, o = (t / chunks) % O, s = t / (chunks * O);
      const typename K::S* run = x + (o * S + s) * I + c * chunk;
      const int64_t n = I - c * chunk < chunk ? I - c * chunk : chunk;
      double a = 0;
      if (N == Norm::Max) {
        for (int64_t i = 0; i < n; ++i) a = combine<N>(a, term<N>(K::to(run[i]), p));
      } else {
#pragma omp simd reduction(+ : a)
        for (int64_t i = 0; i < n; ++i) a += term<N>(K::to(run[i]), p);
      }
      part[static_cast<size_t>(t)] = a;
    }
    for (int64_t s = 0; s < S; ++s) {
      double a = 0;
      for (int64_t k = 0; k < O * chunks; ++k) a = combine<N>(a, part[static_cast<size_t>(s * O * chunks + k)]);
      acc[s] = a;
    }
    return;
  }
  // Short inner runs: one accumulator per slab position j = s * I + i.
  const int64_t W = S * I;
  std::vector<double> flat(static_cast<size_t>(W), 0.0);
  const int threads = omp_get_max_threads();
  if (W >= 4096 * threads || O < 2 * threads) {
    // Threads own ranges of j and run over every outer index.
#pragma omp parallel for schedule(static) if (O * W > 32768)
    for (int64_t b = 0; b < W; b += 1024) {
      const int64_t e = b + 1024 < W ? b + 1024 : W;
      double* f = flat.data();
      for (int64_t o = 0; o < O; ++o) {
        const typename K::S* row = x + o * W;
#pragma omp simd
        for (int64_t j = b; j < e; ++j) f[j] = combine<N>(f[j], term<N>(K::to(row[j]), p));
      }
    }
  } else {
    // Few positions, many outer indices: per-thread slabs, combined in thread order.
    std::vector<double> priv(static_cast<size_t>(threads * W), 0.0);
#pragma omp parallel num_threads(threads)
    {
      double* f = priv.data() + static_cast<int64_t>(omp_get_thread_num()) * W;
#pragma omp for schedule(static)
      for (int64_t o = 0; o < O; ++o) {
        const typename K::S* row = x + o * W;
#pragma omp simd
        for (int64_t j = 0; j < W; ++j) f[j] = combine<N>(f[j], term<N>(K::to(row[j]), p));
      }
    }
    for (int t = 0; t < threads; ++t)
      for (int64_t j = 0; j < W; ++j) flat[j] = combine<N>(flat[j], priv[static_cast<size_t>(t * W + j)]);
  }
  for (int64_t s = 0; s < S; ++s) {
    double a = 0;
    for (int64_t i = 0; i < I; ++i) a = combine<N>(a, flat[static_cast<size_t>(s * I + i)]);
    acc[s] = a;
  }
}

// Offsets in self and out of element k (row-major over the non-dim dims).
inline void offsets(const Geometry& g, int64_t k, int64_t* xo, int64_t* yo) {
  int64_t a = 0, b = 0;
  for (int d = g.nd - 1; d >= 0; --d) {
    const int64_t q = k / g.size[d], r = k - q * g.size[d];
    k = q;
    a += r * g.xs[d];
    b += r * g.ys[d];
  }
  *xo = a;
  *yo = b;
}

template <typename K, Norm N>
void slice_sums_strided(const Geometry& g, const typename K::S* x, double p, double* acc) {
  const int64_t per = g.outer * g.inner;
#pragma omp parallel for schedule(static) if (g.slices * per > 32768)
  for (int64_t s = 0; s < g.slices; ++s) {
    double a = 0;
    for (int64_t k = 0; k < per; ++k) {
      int64_t xo, yo;
      offsets(g, k, &xo, &yo);
      a = combine<N>(a, term<N>(K::to(x[s * g.x_dim + xo]), p));
    }
    acc[s] = a;
  }
}

template <typename K>
void scale(const Geometry& g, const typename K::S* x, typename K::S* y, const typename K::C* factor) {
  using C = typename K::C;
  const int64_t S = g.slices, I = g.inner, O = g.outer;
  if (g.x_contiguous && g.y_contiguous) {
    if (I >= 16) {
#pragma omp parallel for schedule(static) if (O * S * I > 32768)
      for (int64_t t = 0; t < O * S; ++t) {
        const C f = factor[t % S];
        const typename K::S* src = x + t * I;
        typename K::S* dst = y + t * I;
#pragma omp simd
        for (int64_t i = 0; i < I; ++i) dst[i] = K::from(K::to(src[i]) * f);
      }
      return;
    }
    // Short inner runs: the factor expanded over the [S, inner] slab.
    const int64_t W = S * I;
    std::vector<C> slab(static_cast<size_t>(W));
    for (int64_t j = 0; j < W; ++j) slab[static_cast<size_t>(j)] = factor[j / I];
    const C* f = slab.data();
#pragma omp parallel for schedule(static) collapse(2) if (O * W > 32768)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t b = 0; b < W; b += 4096) {
        const int64_t e = b + 4096 < W ? b + 4096 : W;
        const typename K::S* src = x + o * W;
        typename K::S* dst = y + o * W;
#pragma omp simd
        for (int64_t j = b; j < e; ++j) dst[j] = K::from(K::to(src[j]) * f[j]);
      }
    return;
  }
  const int64_t per = O * I;
#pragma omp parallel for schedule(static) if (S * per > 32768)
  for (int64_t s = 0; s < S; ++s) {
    const C f = factor[s];
    for (int64_t k = 0; k < per; ++k) {
      int64_t xo, yo;
      offsets(g, k, &xo, &yo);
      y[s * g.y_dim + yo] = K::from(K::to(x[s * g.x_dim + xo]) * f);
    }
  }
}

template <typename K>
void run(const Geometry& g, const void* xv, void* yv, double p, double maxnorm) {
  using C = typename K::C;
  const auto* x = static_cast<const typename K::S*>(xv);
  auto* y = static_cast<typename K::S*>(yv);
  std::vector<double> acc(static_cast<size_t>(g.slices));
  const Norm n = isinf(p) ? Norm::Max : p == 1 ? Norm::L1 : p == 2 ? Norm::L2 : Norm::Pow;
  if (g.x_contiguous) {
    switch (n) {
      case Norm::L1: slice_sums_contiguous<K, Norm::L1>(g, x, p, acc.data()); break;
      case Norm::L2: slice_sums_contiguous<K, Norm::L2>(g, x, p, acc.data()); break;
      case Norm::Max: slice_sums_contiguous<K, Norm::Max>(g, x, p, acc.data()); break;
      case Norm::Pow: slice_sums_contiguous<K, Norm::Pow>(g, x, p, acc.data()); break;
    }
  } else {
    switch (n) {
      case Norm::L1: slice_sums_strided<K, Norm::L1>(g, x, p, acc.data()); break;
      case Norm::L2: slice_sums_strided<K, Norm::L2>(g, x, p, acc.data()); break;
      case Norm::Max: slice_sums_strided<K, Norm::Max>(g, x, p, acc.data()); break;
      case Norm::Pow: slice_sums_strided<K, Norm::Pow>(g, x, p, acc.data()); break;
    }
  }
  // Factor in the compute type, rounded to self's dtype (ATen's factor tensor).
  std::vector<C> factor(static_cast<size_t>(g.slices));
  const C maxn = static_cast<C>(maxnorm);
  for (int64_t s = 0; s < g.slices; ++s) {
    double norm = acc[s];
    switch (n) {
      case Norm::L2: norm = finish<Norm::L2>(norm, p); break;
      case Norm::Pow: norm = finish<Norm::Pow>(norm, p); break;
      default: break;
    }
    const C nc = static_cast<C>(norm);
    const C f = nc > maxn ? maxn / (nc + static_cast<C>(1e-7)) : C(1);
    factor[static_cast<size_t>(s)] = K::to(K::from(f));
  }
  scale<K>(g, x, y, factor.data());
}

double scalar_value(const kgb_scalar& s) {
  return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i);
}

}  // namespace

extern "C" int kgb_aten_renorm(const kgb_tensor* self, kgb_scalar p_arg, int64_t dim, kgb_scalar maxnorm_arg,
                               kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->dtype != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (p_arg.dtype == KGB_C128 || maxnorm_arg.dtype == KGB_C128) return KGB_ERR_INVALID;
  const double p = scalar_value(p_arg), maxnorm = scalar_value(maxnorm_arg);
  const int rank = self->rank;
  if (!(p > 0) || !(maxnorm >= 0) || rank < 2) return KGB_ERR_INVALID;
  if (dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  Geometry g;
  for (int d = 0; d < rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
    if (d == dim) {
      g.slices = self->sizes[d];
      g.x_dim = self->strides[d];
      g.y_dim = out->strides[d];
      continue;
    }
    (d < dim ? g.outer : g.inner) *= self->sizes[d];
    g.size[g.nd] = self->sizes[d];
    g.xs[g.nd] = self->strides[d];
    g.ys[g.nd] = out->strides[d];
    ++g.nd;
  }
  if (kgb_numel(self) == 0) return KGB_OK;
  g.x_contiguous = is_row_major(self);
  g.y_contiguous = is_row_major(out);
  switch (self->dtype) {
    case KGB_F32: run<F32>(g, self->data, out->data, p, maxnorm); break;
    case KGB_F64: run<F64>(g, self->data, out->data, p, maxnorm); break;
    case KGB_F16: run<F16>(g, self->data, out->data, p, maxnorm); break;
    default: run<BF16>(g, self->data, out->data, p, maxnorm); break;
  }
  return KGB_OK;
}
