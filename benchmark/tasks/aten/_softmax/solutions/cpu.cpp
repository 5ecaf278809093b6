// aten/_softmax on the CPU: softmax along dim, out in self's dtype or, with
// half_to_float, f16 in and f32 out (converted once on load, never rounded to
// 16 bits). The tensor is seen as outer x len x inner around `dim`.
// Rows (inner < 8, e.g. the last dim, or strided slabs): each slice is
// gathered into a float (double for f64) buffer, and max, exp+sum and
// scaling run as SIMD loops over it. Contiguous slabs with 2 <= inner < 8
// (200x40999x3 over the middle) are read flat with inner-interleaved lanes.
// inner >= 8: blocks of W neighbouring slices are processed together so the
// SIMD lanes run across slices (unit stride in memory for the usual
// layouts). exp is a vectorisable Cephes-style
// polynomial (about 1 ulp in float); f64 uses std::exp.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define KGB_SOFTMAX_F16C 1
#endif

namespace {

inline float bits_to_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
inline uint32_t float_to_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

// Storage type S, compute type C, and contiguous/strided block conversions.
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

template <typename K>
void load(const typename K::S* p, int64_t stride, typename K::C* dst, int64_t n) {
  if (stride == 1) { for (int64_t i = 0; i < n; ++i) dst[i] = K::to(p[i]); return; }
  for (int64_t i = 0; i < n; ++i) dst[i] = K::to(p[i * stride]);
}
template <typename K>
void store(const typename K::C* src, typename K::S* p, int64_t stride, int64_t n) {
  if (stride == 1) { for (int64_t i = 0; i < n; ++i) p[i] = K::from(src[i]); return; }
  for (int64_t i = 0; i < n; ++i) p[i * stride] = K::from(src[i]);
}
#if KGB_SOFTMAX_F16C
template <>
void load<F16>(const uint16_t* p, int64_t stride, float* dst, int64_t n) {
  int64_t i = 0;
  if (stride == 1)
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
  for (; i < n; ++i) dst[i] = kgb_f16_to_float(p[i * stride]);
}
template <>
void store<F16>(const float* src, uint16_t* p, int64_t stride, int64_t n) {
  int64_t i = 0;
  if (stride == 1)
    for (; i + 8 <= n; i += 8)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p + i),
                       _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) p[i * stride] = kgb_float_to_f16(src[i]);
}
#endif

// ---- exp -------------------------------------------------------------------
// Range reduction x = k ln2 + r, |r| <= ln2/2, then a degree-6 polynomial.
// Callers pass x - max <= 0 with every NaN/+inf slice already set aside, so the
// only special input is -inf; results below 2^-126 are flushed to 0 (far
// below any tolerance). The clamp and the flush are bit-mask selects: with
// GCC's default -ftrapping-math a ?: between floats is not if-converted and
// the loop would stay scalar.
inline float select_bits(uint32_t mask, float a, float b) {  // mask ? a : b, mask all-ones or zero
  return bits_to_float((float_to_bits(a) & mask) | (float_to_bits(b) & ~mask));
}
inline float exp_c(float x) {
  const uint32_t tiny = 0u - static_cast<uint32_t>(x < -87.3f);
  const float xc = select_bits(tiny, -87.3f, x);
  // Round to nearest by adding and removing 1.5 * 2^23 (floorf would be a
  // library call).
  const float k = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (xc - k * 0.693359375f) - k * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * (r * r) + r + 1.0f;
  const float scale = bits_to_float(static_cast<uint32_t>(static_cast<int32_t>(k) + 127) << 23);
  return select_bits(tiny, 0.0f, e * scale);
}
inline double exp_c(double x) { return exp(x); }

// ---- one contiguous slice --------------------------------------------------
template <typename C>
void softmax_row(C* v, int64_t n) {
  const C inf = static_cast<C>(INFINITY);
  C m = -inf;
  int bad = 0;  // NaN or +inf present: the whole slice becomes NaN
#pragma omp simd reduction(max : m) reduction(| : bad)
  for (int64_t i = 0; i < n; ++i) {
    m = v[i] > m ? v[i] : m;
    bad |= !(v[i] < inf);
  }
  if (bad || m == -inf) {  // IEEE gives NaN for these slices (inf - inf, -inf - -inf)
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<C>(NAN);
    return;
  }
  C sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) {
    const C e = exp_c(v[i] - m);
    v[i] = e;
    sum += e;
  }
  const C scale = C(1) / sum;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) v[i] *= scale;
}

// W neighbouring slices stored as buf[l * W + j]; lanes j >= w are padding.
template <typename C, int W>
void softmax_columns(C* buf, int64_t len, int w) {
  const C inf = static_cast<C>(INFINITY);
  C m[W], sum[W], scale[W];
  int bad[W];
  for (int j = 0; j < W; ++j) { m[j] = -inf; sum[j] = 0; bad[j] = 0; }
  for (int64_t l = 0; l < len; ++l) {
    const C* row = buf + l * W;
#pragma omp simd
    for (int j = 0; j < W; ++j) {
      m[j] = row[j] > m[j] ? row[j] : m[j];
      bad[j] |= !(row[j] < inf);
    }
  }
  // Slices that end up NaN (and padding lanes) get zeros so exp sees finite input.
  bool any_bad = false;
  for (int j = 0; j < W; ++j) {
    bad[j] = bad[j] || m[j] == -inf || j >= w;
    any_bad = any_bad || bad[j];
  }
  if (any_bad) {
    for (int j = 0; j < W; ++j) {
      if (!bad[j]) continue;
      m[j] = 0;
      for (int64_t l = 0; l < len; ++l) buf[l * W + j] = 0;
    }
  }
  for (int64_t l = 0; l < len; ++l) {
    C* row = buf + l * W;
#pragma omp simd
    for (int j = 0; j < W; ++j) {
      const C e = exp_c(row[j] - m[j]);
      row[j] = e;
      sum[j] += e;
    }
  }
  for (int j = 0; j < W; ++j) scale[j] = bad[j] ? static_cast<C>(NAN) : C(1) / sum[j];
  for (int64_t l = 0; l < len; ++l) {
    C* row = buf + l * W;
#pragma omp simd
    for (int j = 0; j < W; ++j) row[j] *= scale[j];
  }
}

// ---- geometry --------------------------------------------------------------
struct Geometry {
  int64_t outer = 1, len = 1, inner = 1;
  int nouter = 0;
  int64_t osize[KGB_MAX_RANK], ostride_x[KGB_MAX_RANK], ostride_y[KGB_MAX_RANK];
  int64_t xs = 0, ys = 0;        // strides along dim
  std::vector<int64_t> xin, yin;  // offsets of the inner positions (row-major over dims after dim)
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

void build_geometry(const kgb_tensor* x, const kgb_tensor* y, int dim, Geometry& g) {
  for (int d = 0; d < dim; ++d) {
    g.osize[g.nouter] = x->sizes[d];
    g.ostride_x[g.nouter] = x->strides[d];
    g.ostride_y[g.nouter] = y->strides[d];
    ++g.nouter;
    g.outer *= x->sizes[d];
  }
  if (x->rank > 0) {
    g.len = x->sizes[dim];
    g.xs = x->strides[dim];
    g.ys = y->strides[dim];
  }
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
      b += y->strides[d];
      if (++idx[d] < x->sizes[d]) break;
      a -= x->strides[d] * x->sizes[d];
      b -= y->strides[d] * x->sizes[d];
      idx[d] = 0;
    }
  }
}

// KI: self's storage, KO: out's (same compute type C).
template <typename KI, typename KO>
void run_rows(const Geometry& g, const typename KI::S* x, typename KO::S* y) {
  using C = typename KI::C;
  const int64_t slices = g.outer * g.inner;
#pragma omp parallel if (slices * g.len > 16384)
  {
    std::vector<C> buf(static_cast<size_t>(g.len));
#pragma omp for schedule(static)
    for (int64_t s = 0; s < slices; ++s) {
      const int64_t o = s / g.inner, i = s - o * g.inner;
      int64_t xo, yo;
      g.outer_offsets(o, &xo, &yo);
      if (g.inner > 1) xo += g.xin[static_cast<size_t>(i)], yo += g.yin[static_cast<size_t>(i)];
      load<KI>(x + xo, g.xs, buf.data(), g.len);
      softmax_row<C>(buf.data(), g.len);
      store<KO>(buf.data(), y + yo, g.ys, g.len);
    }
  }
}

template <typename KI, typename KO>
void run_columns(const Geometry& g, const typename KI::S* x, typename KO::S* y) {
  using C = typename KI::C;
  constexpr int W = 32;
  const int64_t blocks = (g.inner + W - 1) / W;
  const int64_t items = g.outer * blocks;
#pragma omp parallel if (g.outer * g.len * g.inner > 16384)
  {
    std::vector<C> buf(static_cast<size_t>(g.len * W), C(0));
    std::vector<C> tmp(W);
#pragma omp for schedule(static)
    for (int64_t it = 0; it < items; ++it) {
      const int64_t o = it / blocks, j0 = (it % blocks) * W;
      const int w = static_cast<int>(g.inner - j0 < W ? g.inner - j0 : W);
      int64_t xo, yo;
      g.outer_offsets(o, &xo, &yo);
      for (int64_t l = 0; l < g.len; ++l) {
        C* row = buf.data() + l * W;
        const typename KI::S* src = x + xo + l * g.xs;
        if (g.x_unit) load<KI>(src + j0, 1, row, w);
        else for (int j = 0; j < w; ++j) row[j] = KI::to(src[g.xin[static_cast<size_t>(j0 + j)]]);
      }
      softmax_columns<C, W>(buf.data(), g.len, w);
      for (int64_t l = 0; l < g.len; ++l) {
        const C* row = buf.data() + l * W;
        typename KO::S* dst = y + yo + l * g.ys;
        if (g.y_unit) store<KO>(row, dst + j0, 1, w);
        else for (int j = 0; j < w; ++j) dst[g.yin[static_cast<size_t>(j0 + j)]] = KO::from(row[j]);
      }
    }
  }
}

// Contiguous slabs with a short inner dim (2 <= inner < 8, x[o][l][i] with
// unit inner stride in self and out, e.g. 200x40999x3 over the middle): the
// slab of one outer index is one contiguous run of len * inner elements, read
// with W = inner * k lanes (lane j belongs to slice j % inner), so every pass
// is a flat SIMD loop: max, exp into a buffer with per-lane sums, scale.
template <typename KI, typename KO>
void run_slabs(const Geometry& g, const typename KI::S* x, typename KO::S* y) {
  using C = typename KI::C;
  const int I = static_cast<int>(g.inner);
  const int W = (64 / I) * I;  // lanes, a multiple of inner
  const int64_t n = g.len * I;
  const C inf = static_cast<C>(INFINITY);
#pragma omp parallel if (g.outer * n > 16384)
  {
    std::vector<C> buf(static_cast<size_t>(n));
#pragma omp for schedule(static)
    for (int64_t o = 0; o < g.outer; ++o) {
      int64_t xo, yo;
      g.outer_offsets(o, &xo, &yo);
      const typename KI::S* src = x + xo;
      typename KO::S* dst = y + yo;
      C lm[64], ls[64], shift[64], scale[64];
      int lbad[64];
      for (int j = 0; j < W; ++j) lm[j] = -inf, ls[j] = 0, lbad[j] = 0;
      int64_t t = 0;
      for (; t + W <= n; t += W) {
#pragma omp simd
        for (int j = 0; j < W; ++j) {
          const C v = KI::to(src[t + j]);
          buf[t + j] = v;
          lm[j] = v > lm[j] ? v : lm[j];
          lbad[j] |= !(v < inf);
        }
      }
      for (int j = 0; t + j < n; ++j) {
        const C v = KI::to(src[t + j]);
        buf[t + j] = v;
        lm[j] = v > lm[j] ? v : lm[j];
        lbad[j] |= !(v < inf);
      }
      // Per slice: its max and whether it ends up NaN (NaN, +inf, all -inf).
      C m[8];
      int bad[8];
      for (int i = 0; i < I; ++i) m[i] = -inf, bad[i] = 0;
      for (int j = 0; j < W; ++j) {
        m[j % I] = lm[j] > m[j % I] ? lm[j] : m[j % I];
        bad[j % I] |= lbad[j];
      }
      for (int i = 0; i < I; ++i) bad[i] = bad[i] || m[i] == -inf;
      for (int j = 0; j < W; ++j) shift[j] = bad[j % I] ? C(0) : m[j % I];
      C* e = buf.data();
      for (t = 0; t + W <= n; t += W) {
#pragma omp simd
        for (int j = 0; j < W; ++j) {
          const C v = exp_c(e[t + j] - shift[j]);
          e[t + j] = v;
          ls[j] += v;
        }
      }
      for (int j = 0; t + j < n; ++j) {
        const C v = exp_c(e[t + j] - shift[j]);
        e[t + j] = v;
        ls[j] += v;
      }
      C sum[8];
      for (int i = 0; i < I; ++i) sum[i] = 0;
      for (int j = 0; j < W; ++j) sum[j % I] += ls[j];
      for (int j = 0; j < W; ++j) scale[j] = bad[j % I] ? static_cast<C>(NAN) : C(1) / sum[j % I];
      for (t = 0; t + W <= n; t += W) {
#pragma omp simd
        for (int j = 0; j < W; ++j) dst[t + j] = KO::from(e[t + j] * scale[j]);
      }
      for (int j = 0; t + j < n; ++j) dst[t + j] = KO::from(e[t + j] * scale[j]);
    }
  }
}

template <typename KI, typename KO = KI>
void run(const kgb_tensor* self, kgb_tensor* out, int dim) {
  Geometry g;
  build_geometry(self, out, dim, g);
  const auto* x = static_cast<const typename KI::S*>(self->data);
  auto* y = static_cast<typename KO::S*>(out->data);
  const bool slab = g.inner > 1 && g.inner < 8 && g.x_unit && g.y_unit && g.xs == g.inner && g.ys == g.inner;
  if (slab) run_slabs<KI, KO>(g, x, y);
  else if (g.inner < 8) run_rows<KI, KO>(g, x, y);
  else run_columns<KI, KO>(g, x, y);
}

}  // namespace

extern "C" int kgb_aten__softmax(const kgb_tensor* self, int64_t dim, int half_to_float, kgb_tensor* out,
                                 kgb_stream stream) {
  (void)stream;
  if (self->rank != out->rank) return KGB_ERR_INVALID;
  if (half_to_float ? (self->dtype != KGB_F16 || out->dtype != KGB_F32) : self->dtype != out->dtype)
    return KGB_ERR_UNSUPPORTED;
  for (int d = 0; d < self->rank; ++d)
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
  const int64_t nominal = self->rank == 0 ? 1 : self->rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (kgb_numel(self) == 0) return KGB_OK;
  const int d = static_cast<int>(dim);
  if (half_to_float) {
    run<F16, F32>(self, out, d);
    return KGB_OK;
  }
  switch (self->dtype) {
    case KGB_F32: run<F32>(self, out, d); break;
    case KGB_F64: run<F64>(self, out, d); break;
    case KGB_F16: run<F16>(self, out, d); break;
    case KGB_BF16: run<BF16>(self, out, d); break;
  }
  return KGB_OK;
}
