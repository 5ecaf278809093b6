// aten/sum over one dimension on the CPU (output in the input dtype).
// self is seen as outer x len x inner around `dim`; out is addressed with its
// strides re-aligned to self's dims (stride 0 at `dim` when it was removed).
//  - inner == 1: each output is the SIMD sum of one row;
//  - inner > 1: W neighbouring outputs are accumulated together (SIMD across
//    outputs, unit-stride reads for the usual layouts);
//  - too few outputs to keep every thread busy: the reduced dimension is cut
//    into fixed-size chunks whose partial sums are added in a fixed order, so
//    the result never depends on the thread count.
// Accumulators: double for f32/f64, float for f16/bf16, 64-bit wrap-around
// integers for i32/i64.
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define KGB_SUM_F16C 1
#endif

namespace {

// Storage type S and accumulator A per dtype.
struct F32 {
  using S = float; using A = double;
  static A to(S v) { return v; }
  static S from(A v) { return static_cast<S>(v); }
};
struct F64 {
  using S = double; using A = double;
  static A to(S v) { return v; }
  static S from(A v) { return v; }
};
struct F16 {
  using S = uint16_t; using A = float;
  static A to(S v) { return kgb_f16_to_float(v); }
  static S from(A v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using A = float;
  static A to(S v) { return kgb_bf16_to_float(v); }
  static S from(A v) { return kgb_float_to_bf16(v); }
};
struct I32 {
  using S = int32_t; using A = uint64_t;
  static A to(S v) { return static_cast<A>(static_cast<int64_t>(v)); }
  static S from(A v) { return static_cast<S>(static_cast<uint32_t>(v)); }
};
struct I64 {
  using S = int64_t; using A = uint64_t;
  static A to(S v) { return static_cast<A>(v); }
  static S from(A v) { return static_cast<S>(v); }
};

// Sum of n elements p[0], p[stride], ...
template <typename K>
typename K::A row_sum(const typename K::S* p, int64_t stride, int64_t n) {
  using A = typename K::A;
  A acc = 0;
  if (stride == 1) {
#pragma omp simd reduction(+ : acc)
    for (int64_t i = 0; i < n; ++i) acc += K::to(p[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) acc += K::to(p[i * stride]);
  }
  return acc;
}
#if KGB_SUM_F16C
// Half rows: hardware conversion of 8 lanes, two independent float accumulators.
template <>
float row_sum<F16>(const uint16_t* p, int64_t stride, int64_t n) {
  if (stride != 1) {
    float acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += kgb_f16_to_float(p[i * stride]);
    return acc;
  }
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_add_ps(a0, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
    a1 = _mm256_add_ps(a1, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 8))));
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, _mm256_add_ps(a0, a1));
  float acc = 0;
  for (int k = 0; k < 8; ++k) acc += lanes[k];
  for (; i < n; ++i) acc += kgb_f16_to_float(p[i]);
  return acc;
}
#endif

// ---- geometry --------------------------------------------------------------
struct Geometry {
  int64_t outer = 1, len = 1, inner = 1;
  int nouter = 0;
  int64_t osize[KGB_MAX_RANK], ostride_x[KGB_MAX_RANK], ostride_y[KGB_MAX_RANK];
  int64_t xs = 0;                     // self stride along dim
  std::vector<int64_t> xin, yin;      // offsets of the inner positions (row-major over dims after dim)
  bool x_unit = true, y_unit = true;  // inner offsets are 0, 1, 2, ...

  void outer_offsets(int64_t o, int64_t* xo, int64_t* yo) const {
    int64_t a = 0, b = 0;
    for (int d = nouter - 1; d >= 0; --d) {
      const int64_t i = o % osize[d];
      o /= osize[d];
      a += i * ostride_x[d];
      b += i * ostride_y[d];
    }
    *xo = a;
    *yo = b;
  }
};

// ystride: out's strides aligned to self's dims.
void build_geometry(const kgb_tensor* x, const int64_t* ystride, int dim, Geometry& g) {
  for (int d = 0; d < dim; ++d) {
    g.osize[g.nouter] = x->sizes[d];
    g.ostride_x[g.nouter] = x->strides[d];
    g.ostride_y[g.nouter] = ystride[d];
    ++g.nouter;
    g.outer *= x->sizes[d];
  }
  g.len = x->sizes[dim];
  g.xs = x->strides[dim];
  for (int d = dim + 1; d < x->rank; ++d) g.inner *= x->sizes[d];
  if (g.inner <= 1) return;
  g.xin.assign(static_cast<size_t>(g.inner), 0);
  g.yin.assign(static_cast<size_t>(g.inner), 0);
  int64_t idx[KGB_MAX_RANK] = {0};
  int64_t a = 0, b = 0;
  for (int64_t i = 0; i < g.inner; ++i) {
    g.xin[static_cast<size_t>(i)] = a;
    g.yin[static_cast<size_t>(i)] = b;
    g.x_unit = g.x_unit && a == i;
    g.y_unit = g.y_unit && b == i;
    for (int d = x->rank - 1; d > dim; --d) {  // odometer over the inner dims
      a += x->strides[d];
      b += ystride[d];
      if (++idx[d] < x->sizes[d]) break;
      a -= x->strides[d] * x->sizes[d];
      b -= ystride[d] * x->sizes[d];
      idx[d] = 0;
    }
  }
}

// Chunks of the reduced dimension: one when there are enough outputs to share
// out, otherwise fixed-size pieces (independent of the thread count).
int64_t len_chunks(int64_t independent_items, int64_t len, int64_t piece) {
  if (independent_items >= 64 || len <= 2 * piece) return 1;
  return (len + piece - 1) / piece;
}

// ---- inner == 1 ---------------------------------------------------------------
template <typename K>
void sum_rows(const Geometry& g, const typename K::S* x, typename K::S* y) {
  using A = typename K::A;
  const int64_t piece = 32768;
  const int64_t nl = len_chunks(g.outer, g.len, piece);
  if (nl == 1) {
#pragma omp parallel for schedule(static) if (g.outer * g.len > 32768)
    for (int64_t o = 0; o < g.outer; ++o) {
      int64_t xo, yo;
      g.outer_offsets(o, &xo, &yo);
      y[yo] = K::from(row_sum<K>(x + xo, g.xs, g.len));
    }
    return;
  }
  std::vector<A> part(static_cast<size_t>(g.outer * nl));
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < g.outer * nl; ++t) {
    const int64_t o = t / nl, c = t % nl;
    int64_t xo, yo;
    g.outer_offsets(o, &xo, &yo);
    const int64_t begin = c * piece, n = g.len - begin < piece ? g.len - begin : piece;
    part[static_cast<size_t>(t)] = row_sum<K>(x + xo + begin * g.xs, g.xs, n);
  }
  for (int64_t o = 0; o < g.outer; ++o) {
    A acc = 0;
    for (int64_t c = 0; c < nl; ++c) acc += part[static_cast<size_t>(o * nl + c)];
    int64_t xo, yo;
    g.outer_offsets(o, &xo, &yo);
    y[yo] = K::from(acc);
  }
}

// ---- inner > 1: W outputs side by side ----------------------------------------
template <typename K, int W>
void column_block(const Geometry& g, const typename K::S* x, int64_t xo, int64_t j0, int w, int64_t l0, int64_t l1,
                  typename K::A* acc) {
  for (int j = 0; j < W; ++j) acc[j] = 0;
  for (int64_t l = l0; l < l1; ++l) {
    const typename K::S* src = x + xo + l * g.xs;
    if (g.x_unit && w == W) {
      src += j0;
#pragma omp simd
      for (int j = 0; j < W; ++j) acc[j] += K::to(src[j]);
    } else {
      for (int j = 0; j < w; ++j) acc[j] += K::to(src[g.xin[static_cast<size_t>(j0 + j)]]);
    }
  }
}

template <typename K>
void sum_columns(const Geometry& g, const typename K::S* x, typename K::S* y) {
  using A = typename K::A;
  constexpr int W = 64;
  const int64_t piece = 1024;
  const int64_t blocks = (g.inner + W - 1) / W;
  const int64_t nl = len_chunks(g.outer * blocks, g.len, piece);
  const int64_t items = g.outer * blocks * nl;
  std::vector<A> part(nl > 1 ? static_cast<size_t>(items * W) : 0);
#pragma omp parallel for schedule(static) if (g.outer * g.len * g.inner > 32768)
  for (int64_t t = 0; t < items; ++t) {
    const int64_t c = t % nl, b = (t / nl) % blocks, o = t / (nl * blocks);
    const int64_t j0 = b * W;
    const int w = static_cast<int>(g.inner - j0 < W ? g.inner - j0 : W);
    int64_t xo, yo;
    g.outer_offsets(o, &xo, &yo);
    const int64_t l0 = c * piece, l1 = nl == 1 ? g.len : (l0 + piece < g.len ? l0 + piece : g.len);
    A acc[W];
    column_block<K, W>(g, x, xo, j0, w, l0, l1, acc);
    if (nl > 1) {
      for (int j = 0; j < W; ++j) part[static_cast<size_t>(t * W + j)] = acc[j];
      continue;
    }
    for (int j = 0; j < w; ++j) y[yo + (g.y_unit ? j0 + j : g.yin[static_cast<size_t>(j0 + j)])] = K::from(acc[j]);
  }
  if (nl == 1) return;
  for (int64_t ob = 0; ob < g.outer * blocks; ++ob) {  // fixed-order combination of the chunks
    const int64_t o = ob / blocks, j0 = (ob % blocks) * W;
    const int w = static_cast<int>(g.inner - j0 < W ? g.inner - j0 : W);
    int64_t xo, yo;
    g.outer_offsets(o, &xo, &yo);
    for (int j = 0; j < w; ++j) {
      A acc = 0;
      for (int64_t c = 0; c < nl; ++c) acc += part[static_cast<size_t>((ob * nl + c) * W + j)];
      y[yo + (g.y_unit ? j0 + j : g.yin[static_cast<size_t>(j0 + j)])] = K::from(acc);
    }
  }
}

template <typename K>
void run(const kgb_tensor* self, const int64_t* ystride, int dim, kgb_tensor* out) {
  Geometry g;
  build_geometry(self, ystride, dim, g);
  const auto* x = static_cast<const typename K::S*>(self->data);
  auto* y = static_cast<typename K::S*>(out->data);
  if (g.inner == 1) sum_rows<K>(g, x, y);
  else sum_columns<K>(g, x, y);
}

}  // namespace

extern "C" int kgb_aten_sum(const kgb_tensor* self, int64_t dim, int keepdim, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if (rank < 1 || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int d = static_cast<int>(dim);
  // out's strides aligned to self's dims; a removed dim gets stride 0.
  int64_t ystride[KGB_MAX_RANK];
  if (out->rank != (keepdim ? rank : rank - 1)) return KGB_ERR_INVALID;
  for (int k = 0; k < rank; ++k) {
    if (k == d) {
      if (keepdim && out->sizes[k] != 1) return KGB_ERR_INVALID;
      ystride[k] = 0;
      continue;
    }
    const int ok = keepdim || k < d ? k : k - 1;
    if (out->sizes[ok] != self->sizes[k]) return KGB_ERR_INVALID;
    ystride[k] = out->strides[ok];
  }
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (kgb_numel(out) == 0) return KGB_OK;
  switch (self->dtype) {
    case KGB_F32: run<F32>(self, ystride, d, out); break;
    case KGB_F64: run<F64>(self, ystride, d, out); break;
    case KGB_F16: run<F16>(self, ystride, d, out); break;
    case KGB_BF16: run<BF16>(self, ystride, d, out); break;
    case KGB_I32: run<I32>(self, ystride, d, out); break;
    case KGB_I64: run<I64>(self, ystride, d, out); break;
  }
  return KGB_OK;
}
