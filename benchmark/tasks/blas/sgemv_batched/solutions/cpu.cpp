// blas/sgemv_batched on the CPU: y[b] := alpha * op(A[b]) x[b] + beta * y[b] for every b, the
// batch given as arrays of pointers, column-major.
// Single precision (f32), computed in float.
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
// the vector from its far end: the view's data is element 0). Item b is reached through its own data pointer.
// BLAS rules: m == 0 or n == 0 returns before touching y; alpha == 0 reads
// neither A nor x; beta == 0 never reads y.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

namespace {

typedef float T;

inline T zero() { return 0; }
inline bool nonzero(T v) { return v != 0; }
inline T mul(T a, T b) { return a * b; }
inline T mac(T acc, T a, T b) { return acc + a * b; }

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

// acc[r - r0] += sum over j of A(r, j) * x[j] for the rows [r0, r1), four
// columns per pass over the accumulator.
void rows_n(const Item& it, const Shape& s, int64_t r0, int64_t r1, T* acc) {
  const int64_t len = r1 - r0, vend = len / W * W;
  int64_t j = 0;
  if (s.rs == 1) {
    for (; j + 4 <= s.n; j += 4) {
      const T* c0 = it.a + r0 + j * s.cs;
      const T* c1 = c0 + s.cs;
      const T* c2 = c1 + s.cs;
      const T* c3 = c2 + s.cs;
      const T x0 = it.x[j * s.incx], x1 = it.x[(j + 1) * s.incx], x2 = it.x[(j + 2) * s.incx], x3 = it.x[(j + 3) * s.incx];
      for (int64_t r = 0; r < vend; r += W)
        store(acc + r, load(acc + r) + load(c0 + r) * x0 + load(c1 + r) * x1 + load(c2 + r) * x2 + load(c3 + r) * x3);
      for (int64_t r = vend; r < len; ++r) acc[r] += c0[r] * x0 + c1[r] * x1 + c2[r] * x2 + c3[r] * x3;
    }
  }
  for (; j < s.n; ++j) {
    const T* c = it.a + r0 * s.rs + j * s.cs;
    const T xj = it.x[j * s.incx];
    for (int64_t r = 0; r < len; ++r) acc[r] += c[r * s.rs] * xj;
  }
}

// sum over i of a[i] * x[i] for one column a (row stride rs) of m elements
// (op C of a real matrix is op T); four vector accumulators in flight.
T column_dot(const T* a, int64_t rs, const T* x, int64_t m, bool) {
  T sum = 0;
  int64_t i = 0;
  if (rs == 1) {
    V s0 = {}, s1 = {}, s2 = {}, s3 = {};
    for (; i + 4 * W <= m; i += 4 * W) {
      s0 += load(a + i) * load(x + i);
      s1 += load(a + i + W) * load(x + i + W);
      s2 += load(a + i + 2 * W) * load(x + i + 2 * W);
      s3 += load(a + i + 3 * W) * load(x + i + 3 * W);
    }
    sum = hsum((s0 + s1) + (s2 + s3));
  }
  for (; i < m; ++i) sum += a[i * rs] * x[i];
  return sum;
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

extern "C" int kgb_blas_sgemv_batched(int trans, double alpha, const kgb_tensor_list* Aarray, const kgb_tensor_list* xarray, double beta, kgb_tensor_list* yarray, kgb_stream stream) {
  (void)stream;
  if (trans < 0 || trans > 2) return KGB_ERR_INVALID;
  const int64_t batch = yarray->count;
  if (Aarray->count != batch || xarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A = Aarray->items[0];
  const kgb_tensor* x = xarray->items[0];
  const kgb_tensor* y = yarray->items[0];
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || y->rank != 1) return KGB_ERR_INVALID;
  const Shape s{A->sizes[0], A->sizes[1], A->strides[0], A->strides[1], x->strides[0], y->strides[0]};
  if (x->sizes[0] != (trans == 0 ? s.n : s.m) || y->sizes[0] != (trans == 0 ? s.m : s.n)) return KGB_ERR_INVALID;
  std::vector<Item> items(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b)
    items[static_cast<size_t>(b)] = {static_cast<const T*>(Aarray->items[b]->data), static_cast<const T*>(xarray->items[b]->data),
                                    static_cast<T*>(yarray->items[b]->data)};
  if (s.m == 0 || s.n == 0 || items.empty()) return KGB_OK;  // quick return: y untouched
  gemv(trans, static_cast<T>(alpha), static_cast<T>(beta), s, items);
  return KGB_OK;
}
