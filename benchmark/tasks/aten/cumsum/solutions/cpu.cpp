// aten/cumsum on the CPU (output in the input dtype).
// The tensor is seen as outer x len x inner around `dim`:
//  - inner > 1: blocks of W neighbouring slices are scanned together, so the
//    running sums live in a vector of W accumulators (SIMD across slices);
//  - inner == 1, many slices: rows are scanned four at a time, giving four
//    independent dependency chains per thread;
//  - a few very long slices: a three-pass blocked scan (block sums, prefix of
//    the block sums, rescan) over fixed-size blocks, so the result does not
//    depend on the number of threads.
// Accumulators follow PyTorch's CPU kernel: double for f32/f64, float for
// f16/bf16, 64-bit wrap-around integers for i32/i64.
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define KGB_CUMSUM_F16C 1
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
// Unsigned accumulators: wrap-around instead of signed-overflow UB.
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

template <typename K>
void load(const typename K::S* p, int64_t stride, typename K::A* dst, int64_t n) {
  if (stride == 1) { for (int64_t i = 0; i < n; ++i) dst[i] = K::to(p[i]); return; }
  for (int64_t i = 0; i < n; ++i) dst[i] = K::to(p[i * stride]);
}
template <typename K>
void store(const typename K::A* src, typename K::S* p, int64_t stride, int64_t n) {
  if (stride == 1) { for (int64_t i = 0; i < n; ++i) p[i] = K::from(src[i]); return; }
  for (int64_t i = 0; i < n; ++i) p[i * stride] = K::from(src[i]);
}
#if KGB_CUMSUM_F16C
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

// ---- geometry --------------------------------------------------------------
struct Geometry {
  int64_t outer = 1, len = 1, inner = 1;
  int nouter = 0;
  int64_t osize[KGB_MAX_RANK], ostride_x[KGB_MAX_RANK], ostride_y[KGB_MAX_RANK];
  int64_t xs = 0, ys = 0;             // strides along dim
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
  // Offsets of slice s = o * inner + i.
  void slice_offsets(int64_t s, int64_t* xo, int64_t* yo) const {
    outer_offsets(s / inner, xo, yo);
    if (inner > 1) {
      *xo += xin[static_cast<size_t>(s % inner)];
      *yo += yin[static_cast<size_t>(s % inner)];
    }
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

// ---- inner > 1: W slices side by side ---------------------------------------
template <typename K>
void scan_columns(const Geometry& g, const typename K::S* x, typename K::S* y) {
  using A = typename K::A;
  constexpr int W = 128;
  const int64_t blocks = (g.inner + W - 1) / W;
  const int64_t items = g.outer * blocks;
#pragma omp parallel for schedule(static) if (g.outer * g.len * g.inner > 32768)
  for (int64_t it = 0; it < items; ++it) {
    const int64_t o = it / blocks, j0 = (it % blocks) * W;
    const int w = static_cast<int>(g.inner - j0 < W ? g.inner - j0 : W);
    int64_t xo, yo;
    g.outer_offsets(o, &xo, &yo);
    A acc[W], v[W];
    for (int j = 0; j < W; ++j) acc[j] = 0;
    for (int64_t l = 0; l < g.len; ++l) {
      const typename K::S* src = x + xo + l * g.xs;
      typename K::S* dst = y + yo + l * g.ys;
      if (g.x_unit) load<K>(src + j0, 1, v, w);
      else for (int j = 0; j < w; ++j) v[j] = K::to(src[g.xin[static_cast<size_t>(j0 + j)]]);
#pragma omp simd
      for (int j = 0; j < W; ++j) {
        acc[j] += v[j];
        v[j] = acc[j];
      }
      if (g.y_unit) store<K>(v, dst + j0, 1, w);
      else for (int j = 0; j < w; ++j) dst[g.yin[static_cast<size_t>(j0 + j)]] = K::from(v[j]);
    }
  }
}

// ---- inner == 1: rows, four at a time ----------------------------------------
template <typename K>
void scan_rows(const Geometry& g, const typename K::S* x, typename K::S* y) {
  using A = typename K::A;
  constexpr int R = 4, B = 512;
  const int64_t groups = (g.outer + R - 1) / R;
#pragma omp parallel for schedule(static) if (g.outer * g.len > 32768)
  for (int64_t gi = 0; gi < groups; ++gi) {
    const int k = static_cast<int>(g.outer - gi * R < R ? g.outer - gi * R : R);
    int64_t xo[R], yo[R];
    for (int r = 0; r < k; ++r) g.outer_offsets(gi * R + r, &xo[r], &yo[r]);
    A acc[R] = {0, 0, 0, 0};
    A buf[R][B];
    for (int64_t start = 0; start < g.len; start += B) {
      const int64_t m = g.len - start < B ? g.len - start : B;
      for (int r = 0; r < k; ++r) load<K>(x + xo[r] + start * g.xs, g.xs, buf[r], m);
      if (k == R) {
        A a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];  // independent chains
        for (int64_t i = 0; i < m; ++i) {
          a0 += buf[0][i]; buf[0][i] = a0;
          a1 += buf[1][i]; buf[1][i] = a1;
          a2 += buf[2][i]; buf[2][i] = a2;
          a3 += buf[3][i]; buf[3][i] = a3;
        }
        acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;
      } else {
        for (int r = 0; r < k; ++r) {
          A a = acc[r];
          for (int64_t i = 0; i < m; ++i) { a += buf[r][i]; buf[r][i] = a; }
          acc[r] = a;
        }
      }
      for (int r = 0; r < k; ++r) store<K>(buf[r], y + yo[r] + start * g.ys, g.ys, m);
    }
  }
}

// ---- a few long slices: blocked three-pass scan -----------------------------
template <typename K>
void scan_long(const Geometry& g, const typename K::S* x, typename K::S* y) {
  using A = typename K::A;
  constexpr int64_t kBlock = 65536, B = 512;
  const int64_t slices = g.outer * g.inner;
  const int64_t nblocks = (g.len + kBlock - 1) / kBlock;
  std::vector<A> carry(static_cast<size_t>(slices * nblocks));
  // Pass 1: the sum of every block.
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < slices * nblocks; ++t) {
    const int64_t s = t / nblocks, b = t % nblocks;
    int64_t xo, yo;
    g.slice_offsets(s, &xo, &yo);
    const int64_t begin = b * kBlock, end = begin + kBlock < g.len ? begin + kBlock : g.len;
    A buf[B];
    A sum = 0;
    for (int64_t start = begin; start < end; start += B) {
      const int64_t m = end - start < B ? end - start : B;
      load<K>(x + xo + start * g.xs, g.xs, buf, m);
      A part = 0;
#pragma omp simd reduction(+ : part)
      for (int64_t i = 0; i < m; ++i) part += buf[i];
      sum += part;
    }
    carry[static_cast<size_t>(t)] = sum;
  }
  // Pass 2: exclusive prefix of the block sums, per slice.
  for (int64_t s = 0; s < slices; ++s) {
    A run = 0;
    for (int64_t b = 0; b < nblocks; ++b) {
      const A v = carry[static_cast<size_t>(s * nblocks + b)];
      carry[static_cast<size_t>(s * nblocks + b)] = run;
      run += v;
    }
  }
  // Pass 3: scan every block from its carry.
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < slices * nblocks; ++t) {
    const int64_t s = t / nblocks, b = t % nblocks;
    int64_t xo, yo;
    g.slice_offsets(s, &xo, &yo);
    const int64_t begin = b * kBlock, end = begin + kBlock < g.len ? begin + kBlock : g.len;
    A buf[B];
    A acc = carry[static_cast<size_t>(t)];
    for (int64_t start = begin; start < end; start += B) {
      const int64_t m = end - start < B ? end - start : B;
      load<K>(x + xo + start * g.xs, g.xs, buf, m);
      for (int64_t i = 0; i < m; ++i) { acc += buf[i]; buf[i] = acc; }
      store<K>(buf, y + yo + start * g.ys, g.ys, m);
    }
  }
}

template <typename K>
void run(const kgb_tensor* self, kgb_tensor* out, int dim) {
  Geometry g;
  build_geometry(self, out, dim, g);
  const auto* x = static_cast<const typename K::S*>(self->data);
  auto* y = static_cast<typename K::S*>(out->data);
  // Few slices but long ones: only the blocked scan finds parallelism.
  if (g.outer * g.inner < 8 && g.len >= 4 * 65536) scan_long<K>(g, x, y);
  else if (g.inner > 1) scan_columns<K>(g, x, y);
  else scan_rows<K>(g, x, y);
}

}  // namespace

extern "C" int kgb_aten_cumsum(const kgb_tensor* self, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->dtype != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  for (int d = 0; d < self->rank; ++d)
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
  const int64_t nominal = self->rank == 0 ? 1 : self->rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (kgb_numel(self) == 0) return KGB_OK;
  const int d = static_cast<int>(dim);
  switch (self->dtype) {
    case KGB_F32: run<F32>(self, out, d); break;
    case KGB_F64: run<F64>(self, out, d); break;
    case KGB_F16: run<F16>(self, out, d); break;
    case KGB_BF16: run<BF16>(self, out, d); break;
    case KGB_I32: run<I32>(self, out, d); break;
    case KGB_I64: run<I64>(self, out, d); break;
  }
  return KGB_OK;
}
