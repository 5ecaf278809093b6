// blas/dsbmv on the CPU: y := alpha * A * x + beta * y for an f64 symmetric
// band matrix given by one triangle of its (k + 1) x n column-major band
// (uplo LOWER = 0: diagonal in band row 0; UPPER = 1: diagonal in band row k).
// The unused band corners are never read.
//
// Each stored band column j is read once and used twice, as in a symmetric
// matrix-vector product: its off-diagonal elements A(i, j) give
// t(i) += A(i, j) * x(j) (an axpy) and, mirrored, t(j) += A(i, j) * x(i) (a
// dot product), fused in one unit-stride loop that the compiler vectorises.
// The columns are split over OpenMP threads in chunks of kRows; a chunk
// owns its rows of t, and the axpy contributions that fall into a
// neighbouring chunk's rows (at most k rows) go to the chunk's spill buffer,
// added after the parallel loop in chunk order, so the result does not
// depend on the thread count. x is packed once (any increment, negative ones
// included: data[i * inc] is element i). beta == 0 never reads y, alpha == 0
// reads neither A nor x.
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kRows = 4096;            // columns (and rows of t) per chunk
constexpr int64_t kParallelMin = 1 << 15;  // band elements below which one thread is faster

inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

struct Band {
  const double* a;
  int64_t lda, n, k;
  bool upper;
};

// sum += v(i) * xs(i) and out(i) += v(i) * xj over [lo, hi], v(i) = col[shift + i].
inline double fused(const double* __restrict col, int64_t shift, const double* __restrict xs, double* __restrict out,
                    int64_t out_shift, double xj, int64_t lo, int64_t hi) {
  double sum = 0.0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = lo; i <= hi; ++i) {
    const double v = col[shift + i];
    sum += v * xs[i];
    out[out_shift + i] += v * xj;
  }
  return sum;
}

// Columns [r0, r1): t(r0:r1) gets every contribution to those rows from
// these columns; contributions to rows outside go to spill (k entries: rows
// r0 - k .. r0 - 1 for upper, r1 .. r1 + k - 1 for lower).
void chunk_product(const Band& b, const double* xs, double* t, double* spill, int64_t r0, int64_t r1) {
  for (int64_t i = r0; i < r1; ++i) t[i] = 0.0;
  for (int64_t j = r0; j < r1; ++j) {
    const double* col = b.a + j * b.lda;
    const double xj = xs[j];
    double dot = col[b.upper ? b.k : 0] * xj;  // the diagonal
    if (b.upper) {
      // Off-diagonal rows [j - k, j - 1] at band row k + i - j.
      const int64_t lo = max64(0, j - b.k), shift = b.k - j;
      if (lo < r0) dot += fused(col, shift, xs, spill, b.k - r0, xj, lo, min64(j - 1, r0 - 1));
      dot += fused(col, shift, xs, t, 0, xj, max64(lo, r0), j - 1);
    } else {
      // Off-diagonal rows [j + 1, j + k] at band row i - j.
      const int64_t hi = min64(b.n - 1, j + b.k), shift = -j;
      dot += fused(col, shift, xs, t, 0, xj, j + 1, min64(hi, r1 - 1));
      if (hi >= r1) dot += fused(col, shift, xs, spill, -r1, xj, max64(j + 1, r1), hi);
    }
    t[j] += dot;
  }
}

}  // namespace

extern "C" int kgb_blas_dsbmv(int uplo, double alpha, const kgb_tensor* A, const kgb_tensor* x, double beta, kgb_tensor* y,
                              kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_F64 || x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || y->rank != 1 || (uplo != 0 && uplo != 1)) return KGB_ERR_INVALID;
  const int64_t k = A->sizes[0] - 1, n = A->sizes[1];
  if (k < 0 || x->sizes[0] != n || y->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  const Band b{static_cast<const double*>(A->data), n > 1 ? A->strides[1] : k + 1, n, k, uplo == 1};
  double* yp = static_cast<double*>(y->data);
  const int64_t incy = y->strides[0];
  const bool use_a = alpha != 0.0, read_y = beta != 0.0;
  const int64_t chunks = (n + kRows - 1) / kRows, spill_size = k;
  const bool parallel = n * (k + 1) >= kParallelMin;
  std::vector<double> xs, t, spill;
  if (use_a) {
    const double* xp = static_cast<const double*>(x->data);
    const int64_t incx = x->strides[0];
    xs.resize(static_cast<size_t>(n));
    t.resize(static_cast<size_t>(n));
    spill.assign(static_cast<size_t>(chunks * spill_size), 0.0);
    for (int64_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = xp[i * incx];
#pragma omp parallel for schedule(static) if (parallel)
    for (int64_t c = 0; c < chunks; ++c)
      chunk_product(b, xs.data(), t.data(), spill.data() + c * spill_size, c * kRows, min64(n, (c + 1) * kRows));
    // Spilled contributions, in chunk order.
    for (int64_t c = 0; c < chunks; ++c) {
      const double* sp = spill.data() + c * spill_size;
      const int64_t first = b.upper ? c * kRows - k : min64(n, (c + 1) * kRows);
      for (int64_t s = 0; s < spill_size; ++s)
        if (first + s >= 0 && first + s < n) t[static_cast<size_t>(first + s)] += sp[s];
    }
  }
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t i = 0; i < n; ++i) {
    double v = use_a ? alpha * t[static_cast<size_t>(i)] : 0.0;
    if (read_y) v += beta * yp[i * incy];
    yp[i * incy] = v;
  }
  return KGB_OK;
}
