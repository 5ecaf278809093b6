// aten/pairwise_distance on the CPU: out = || x1 - x2 + eps ||_p over the last
// dimension of the broadcast shape.
//
// The leading dimensions (broadcast strides: 0 where an input has size 1)
// are merged wherever x1, x2 and out all allow it, so rows are usually
// addressed with one multiply. Rows run in parallel; inside a row a unit-
// stride pair of inputs takes a SIMD loop with 16 partial accumulators (also
// more accurate than one running sum), anything else a strided loop. The
// entry d = round(round(x1 - x2) + eps) is rounded to the dtype at both steps
// as ATen's separate tensor ops do; the norm accumulates in float (double for
// f64) and is rounded once.
#include <math.h>
#include <omp.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

struct F32 {
  using S = float; using C = float;
  static C to(S v) { return v; }
  static C round(C v) { return v; }
  static S from(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  static C to(S v) { return v; }
  static C round(C v) { return v; }
  static S from(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  static C to(S v) { return kgb_f16_to_float(v); }
  static C round(C v) { return kgb_f16_to_float(kgb_float_to_f16(v)); }
  static S from(C v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  static C to(S v) { return kgb_bf16_to_float(v); }
  static C round(C v) { return kgb_bf16_to_float(kgb_float_to_bf16(v)); }
  static S from(C v) { return kgb_float_to_bf16(v); }
};

enum class Norm { Count, L1, L2, Max, Pow };

template <Norm N, typename C>
inline C term(C d, C p) {
  const C a = fabs(d);
  if (N == Norm::Count) return d != 0 ? C(1) : C(0);  // NaN != 0 counts
  if (N == Norm::L2) return a * a;
  if (N == Norm::Pow) return pow(a, p);
  return a;
}
template <Norm N, typename C>
inline C combine(C acc, C t) {
  if (N == Norm::Max) return (t > acc || t != t) ? t : acc;  // NaN sticks
  return acc + t;
}
template <Norm N, typename C>
inline C finish(C acc, C p) {
  if (N == Norm::L2) return sqrt(acc);
  if (N == Norm::Pow) return pow(acc, C(1) / p);
  return acc;
}

struct Rows {
  int nd = 0;  // merged leading dimensions
  int64_t size[KGB_MAX_RANK], s1[KGB_MAX_RANK], s2[KGB_MAX_RANK], so[KGB_MAX_RANK];
  int64_t rows = 1, D = 0, k1 = 0, k2 = 0;  // row count, row length, strides along the row
  void offsets(int64_t r, int64_t* a, int64_t* b, int64_t* o) const {
    int64_t x = 0, y = 0, z = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t q = r / size[d], i = r - q * size[d];
      r = q;
      x += i * s1[d];
      y += i * s2[d];
      z += i * so[d];
    }
    *a = x;
    *b = y;
    *o = z;
  }
};

template <typename K, Norm N>
void run(const Rows& g, const typename K::S* x1, const typename K::S* x2, typename K::S* out, double p_arg,
         double eps_arg) {
  using C = typename K::C;
  const C p = static_cast<C>(p_arg), eps = static_cast<C>(eps_arg);
  const int64_t D = g.D;
#pragma omp parallel for schedule(static) if (g.rows * (D + 4) > 32768)
  for (int64_t r = 0; r < g.rows; ++r) {
    int64_t a, b, o;
    g.offsets(r, &a, &b, &o);
    const typename K::S* u = x1 + a;
    const typename K::S* v = x2 + b;
    C acc = 0;
    if (g.k1 == 1 && g.k2 == 1 && D >= 16) {
      constexpr int W = 16;
      C lane[W];
      for (int j = 0; j < W; ++j) lane[j] = 0;
      int64_t k = 0;
      for (; k + W <= D; k += W) {
#pragma omp simd
        for (int j = 0; j < W; ++j) {
          const C d = K::round(K::round(K::to(u[k + j]) - K::to(v[k + j])) + eps);
          lane[j] = combine<N>(lane[j], term<N>(d, p));
        }
      }
      for (; k < D; ++k) {
        const C d = K::round(K::round(K::to(u[k]) - K::to(v[k])) + eps);
        lane[k % W] = combine<N>(lane[k % W], term<N>(d, p));
      }
      for (int j = 0; j < W; ++j) acc = combine<N>(acc, lane[j]);
    } else {
      for (int64_t k = 0; k < D; ++k) {
        const C d = K::round(K::round(K::to(u[k * g.k1]) - K::to(v[k * g.k2])) + eps);
        acc = combine<N>(acc, term<N>(d, p));
      }
    }
    out[o] = K::from(finish<N>(acc, p));
  }
}

template <typename K>
void dispatch(const Rows& g, const void* x1, const void* x2, void* out, double p, double eps) {
  using S = typename K::S;
  const auto* a = static_cast<const S*>(x1);
  const auto* b = static_cast<const S*>(x2);
  auto* o = static_cast<S*>(out);
  if (p == 0) run<K, Norm::Count>(g, a, b, o, p, eps);
  else if (isinf(p)) run<K, Norm::Max>(g, a, b, o, p, eps);
  else if (p == 1) run<K, Norm::L1>(g, a, b, o, p, eps);
  else if (p == 2) run<K, Norm::L2>(g, a, b, o, p, eps);
  else run<K, Norm::Pow>(g, a, b, o, p, eps);
}

}  // namespace

extern "C" int kgb_aten_pairwise_distance(const kgb_tensor* x1, const kgb_tensor* x2, double p, double eps,
                                          int keepdim, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (x1->dtype != x2->dtype || out->dtype != x1->dtype) return KGB_ERR_INVALID;
  switch (x1->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (!(p >= 0)) return KGB_ERR_INVALID;
  const int rank = x1->rank > x2->rank ? x1->rank : x2->rank;
  if (rank < 1 || out->rank != (keepdim ? rank : rank - 1)) return KGB_ERR_INVALID;
  // Broadcast sizes and strides, right-aligned.
  int64_t size[KGB_MAX_RANK], s1[KGB_MAX_RANK], s2[KGB_MAX_RANK];
  for (int d = 0; d < rank; ++d) {
    const int i1 = d - (rank - x1->rank), i2 = d - (rank - x2->rank);
    const int64_t n1 = i1 >= 0 ? x1->sizes[i1] : 1, n2 = i2 >= 0 ? x2->sizes[i2] : 1;
    if (n1 != n2 && n1 != 1 && n2 != 1) return KGB_ERR_INVALID;
    size[d] = n1 == 1 ? n2 : n1;
    s1[d] = (i1 >= 0 && n1 != 1) ? x1->strides[i1] : 0;
    s2[d] = (i2 >= 0 && n2 != 1) ? x2->strides[i2] : 0;
  }
  Rows g;
  g.D = size[rank - 1];
  g.k1 = s1[rank - 1];
  g.k2 = s2[rank - 1];
  for (int d = 0; d + 1 < rank; ++d) {
    if (out->sizes[d] != size[d]) return KGB_ERR_INVALID;
    g.rows *= size[d];
    if (size[d] == 1) continue;
    const int64_t so = out->strides[d];
    const int m = g.nd - 1;
    if (m >= 0 && g.s1[m] == s1[d] * size[d] && g.s2[m] == s2[d] * size[d] && g.so[m] == so * size[d]) {
      g.size[m] *= size[d];  // merges with the previous dimension
      g.s1[m] = s1[d];
      g.s2[m] = s2[d];
      g.so[m] = so;
      continue;
    }
    g.size[g.nd] = size[d];
    g.s1[g.nd] = s1[d];
    g.s2[g.nd] = s2[d];
    g.so[g.nd] = so;
    ++g.nd;
  }
  if (keepdim && out->sizes[rank - 1] != 1) return KGB_ERR_INVALID;
  if (g.rows == 0) return KGB_OK;
  if (g.D == 0 && isinf(p)) return KGB_ERR_INVALID;  // no identity for max
  switch (x1->dtype) {
    case KGB_F32: dispatch<F32>(g, x1->data, x2->data, out->data, p, eps); break;
    case KGB_F64: dispatch<F64>(g, x1->data, x2->data, out->data, p, eps); break;
    case KGB_F16: dispatch<F16>(g, x1->data, x2->data, out->data, p, eps); break;
    default: dispatch<BF16>(g, x1->data, x2->data, out->data, p, eps); break;
  }
  return KGB_OK;
}
