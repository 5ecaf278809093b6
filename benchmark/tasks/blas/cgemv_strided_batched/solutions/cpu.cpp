// blas/cgemv_strided_batched on the CPU: y[b] := alpha * op(A[b]) x[b] + beta * y[b] for every b, the
// batch at fixed strides (0 shares a matrix or vector), column-major.
// Single-precision complex (c64: two floats, real part first, like cuComplex); products and sums in float, op C conjugates A.
//
// GEMV streams A once, so the work is about reading A at memory speed on
// every core. The output is cut into (item, block of outputs) units spread
// over the OpenMP threads with dynamic scheduling, so one large matrix and a
// batch of small ones both keep every core busy:
// - op N (y has m elements, A column-major): a unit owns a block of rows and
//   walks the columns a few at a time, adding a[i, j..] * x[j..] into a row
//   accumulator with 32-byte vectors (contiguous streams).
// - op T/C (y has n elements): a unit owns a block of columns; each output is
//   one column of A dotted with x (several vector accumulators in flight), x
//   first copied densely when its increment is not 1; op C flips the sign of
//   A's imaginary parts.
// The vectors are read through their signed increments (a negative one walks
// the vector from its far end: the view's data is element 0). Item b of the batch is A + b * strideA, x + b * stridex,
// y + b * stridey.
// BLAS rules: m == 0 or n == 0 returns before touching y; alpha == 0 reads
// neither A nor x; beta == 0 never reads y.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

namespace {

struct T {  // (real, imaginary), the layout of float _Complex
  float re, im;
};

inline T zero() { return {0, 0}; }
inline bool nonzero(T v) { return v.re != 0 || v.im != 0; }
inline T mul(T a, T b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
inline T mac(T acc, T a, T b) { return {acc.re + a.re * b.re - a.im * b.im, acc.im + a.re * b.im + a.im * b.re}; }

// One product of the batch: its matrix and vectors.
struct Item {
  const T* a;
  const T* x;
  T* y;
};

struct Shape {
  int64_t m, n;     // A is m x n
  int64_t rs, cs;   // A's row and column strides
  int64_t incx, incy;
};

constexpr int64_t kRowBlock = 1024;  // op N: rows per unit (the accumulator stays in L1)
constexpr int64_t kColBlock = 32;    // op T/C: columns per unit

// 32-byte vectors of float (GCC vector extensions: AVX2 registers, or two
// SSE/NEON halves elsewhere), loaded and stored with memcpy (any alignment).
typedef float V __attribute__((vector_size(32)));
constexpr int64_t W = 32 / sizeof(float);  // floats per vector

inline V load(const float* p) {
  V v;
  memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, V v) { memcpy(p, &v, sizeof v); }
inline float hsum(V v) {
  float s = 0;
  for (int64_t k = 0; k < W; ++k) s += v[k];
  return s;
}

// (re, im) -> (im, re) in every pair (one in-register permute).
inline V swap_pairs(V v) {
  V r;
  for (int64_t k = 0; k < W; ++k) r[k] = v[k ^ 1];
  return r;
}

// acc[r - r0] += sum over j of A(r, j) * x[j] for the rows [r0, r1): the
// accumulator and each column are read as interleaved (re, im) floats, so
// a * x_j = a * (xr, xr, ...) + swap(a) * (-xi, xi, ...), two columns per
// pass over the accumulator.
void rows_n(const Item& it, const Shape& s, int64_t r0, int64_t r1, T* acc) {
  const int64_t len = r1 - r0, flat = 2 * len, vend = flat / W * W;
  float* af = reinterpret_cast<float*>(acc);
  int64_t j = 0;
  if (s.rs == 1) {
    for (; j + 2 <= s.n; j += 2) {
      const float* c0 = reinterpret_cast<const float*>(it.a + r0 + j * s.cs);
      const float* c1 = reinterpret_cast<const float*>(it.a + r0 + (j + 1) * s.cs);
      const T x0 = it.x[j * s.incx], x1 = it.x[(j + 1) * s.incx];
      V re0, im0, re1, im1;
      for (int64_t k = 0; k < W; k += 2) {
        re0[k] = re0[k + 1] = x0.re;
        im0[k] = -x0.im;
        im0[k + 1] = x0.im;
        re1[k] = re1[k + 1] = x1.re;
        im1[k] = -x1.im;
        im1[k + 1] = x1.im;
      }
      for (int64_t f = 0; f < vend; f += W) {
        const V a0 = load(c0 + f), a1 = load(c1 + f);
        store(af + f, load(af + f) + a0 * re0 + swap_pairs(a0) * im0 + a1 * re1 + swap_pairs(a1) * im1);
      }
      for (int64_t r = vend / 2; r < len; ++r) acc[r] = mac(mac(acc[r], it.a[r0 + r + j * s.cs], x0), it.a[r0 + r + (j + 1) * s.cs], x1);
    }
  }
  for (; j < s.n; ++j) {
    const T* c = it.a + r0 * s.rs + j * s.cs;
    const T xj = it.x[j * s.incx];
    for (int64_t r = 0; r < len; ++r) acc[r] = mac(acc[r], c[r * s.rs], xj);
  }
}

// sum over i of op(a[i]) * x[i] for one column a (row stride rs) of m
// elements; op C negates a's imaginary parts. With the parts interleaved,
// p = a * x holds (ar xr, ai xi) pairs and q = a * swap(x) holds (ar xi, ai xr):
// re = sum(ar xr) - sign * sum(ai xi), im = sum(ar xi) + sign * sum(ai xr).
T column_dot(const T* a, int64_t rs, const T* x, int64_t m, bool conj) {
  const float sign = conj ? -1 : 1;
  float rr = 0, ii = 0, ri = 0, ir = 0;  // sums of ar xr, ai xi, ar xi, ai xr
  int64_t i = 0;
  if (rs == 1) {
    const float* af = reinterpret_cast<const float*>(a);
    const float* xf = reinterpret_cast<const float*>(x);
    V p0 = {}, p1 = {}, q0 = {}, q1 = {};
    for (; 2 * i + 2 * W <= 2 * m; i += W) {  // W complex elements: two vectors
      const V a0 = load(af + 2 * i), a1 = load(af + 2 * i + W), x0 = load(xf + 2 * i), x1 = load(xf + 2 * i + W);
      p0 += a0 * x0;
      p1 += a1 * x1;
      q0 += a0 * swap_pairs(x0);
      q1 += a1 * swap_pairs(x1);
    }
    const V p = p0 + p1, q = q0 + q1;
    for (int64_t k = 0; k < W; k += 2) {
      rr += p[k];
      ii += p[k + 1];
      ri += q[k];
      ir += q[k + 1];
    }
  }
  for (; i < m; ++i) {
    const T av = a[i * rs], xv = x[i];
    rr += av.re * xv.re;
    ii += av.im * xv.im;
    ri += av.re * xv.im;
    ir += av.im * xv.re;
  }
  return {rr - sign * ii, ri + sign * ir};
}

// y := alpha * op(A) x + beta * y for every item.
void gemv(int trans, T alpha, T beta, const Shape& s, const std::vector<Item>& items) {
  const bool op_n = trans == 0, conj = trans == 2;
  const int64_t len_y = op_n ? s.m : s.n;
  const int64_t block = op_n ? kRowBlock : kColBlock;
  const int64_t blocks = (len_y + block - 1) / block;
  const int64_t units = static_cast<int64_t>(items.size()) * blocks;
  const bool read_ax = nonzero(alpha), read_y = nonzero(beta);
#pragma omp parallel
  {
    std::vector<T> acc(static_cast<size_t>(block));
    std::vector<T> xdense;  // op T/C: x with unit stride
#pragma omp for schedule(dynamic, 1)
    for (int64_t u = 0; u < units; ++u) {
      const Item& it = items[static_cast<size_t>(u / blocks)];
      const int64_t r0 = (u % blocks) * block, r1 = std::min(len_y, r0 + block);
      std::fill(acc.begin(), acc.end(), zero());
      if (read_ax) {
        if (op_n) {
          rows_n(it, s, r0, r1, acc.data());
        } else {
          const T* x = it.x;
          if (s.incx != 1) {
            xdense.resize(static_cast<size_t>(s.m));
            for (int64_t i = 0; i < s.m; ++i) xdense[static_cast<size_t>(i)] = it.x[i * s.incx];
            x = xdense.data();
          }
          for (int64_t j = r0; j < r1; ++j) acc[static_cast<size_t>(j - r0)] = column_dot(it.a + j * s.cs, s.rs, x, s.m, conj);
        }
      }
      for (int64_t r = r0; r < r1; ++r) {
        T* y = it.y + r * s.incy;
        const T v = mul(alpha, acc[static_cast<size_t>(r - r0)]);
        *y = read_y ? mac(v, beta, *y) : v;  // beta == 0 never reads y
      }
    }
  }
}

}  // namespace

extern "C" int kgb_blas_cgemv_strided_batched(int trans, kgb_complex alpha, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 3 || x->rank != 2 || y->rank != 2) return KGB_ERR_INVALID;
  const int64_t batch = A->sizes[2];
  if (x->sizes[1] != batch || y->sizes[1] != batch) return KGB_ERR_INVALID;
  const Shape s{A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0]};
  if (x->sizes[0] != (trans == 0 ? s.n : s.m) || y->sizes[0] != (trans == 0 ? s.m : s.n)) return KGB_ERR_INVALID;
  std::vector<Item> items(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b)
    items[static_cast<size_t>(b)] = {static_cast<const T*>(A->data) + b * A->strides[2],
                                    static_cast<const T*>(x->data) + b * x->strides[1],
                                    static_cast<T*>(y->data) + b * y->strides[1]};
  if (s.m == 0 || s.n == 0 || items.empty()) return KGB_OK;  // quick return: y untouched
  gemv(trans, T{static_cast<float>(alpha.re), static_cast<float>(alpha.im)}, T{static_cast<float>(beta.re), static_cast<float>(beta.im)}, s, items);
  return KGB_OK;
}
