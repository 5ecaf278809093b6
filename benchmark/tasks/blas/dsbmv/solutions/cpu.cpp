// blas/dsbmv on the CPU: y := alpha * A * x + beta * y for an f64 symmetric
// band matrix given by one triangle of its (k + 1) x n column-major band
// (uplo LOWER = 0: diagonal in band row 0; UPPER = 1: diagonal in band row k).
// The unused band corners are never read.
//
// Row i of the symmetric matrix is band column i (the stored triangle's
// column i, read as a row: a unit-stride dot product with a window of x,
// diagonal included) plus the off-diagonal elements A(i, j) of the other
// columns j, applied column by column as unit-stride axpy updates clipped
// to the rows being computed. x is packed once (any increment, negative ones
// included: data[i * inc] is element i). The outputs are split over OpenMP
// threads in chunks of kRows rows, each chunk independent, then combined with
// alpha and beta; beta == 0 never reads y, alpha == 0 reads neither A nor x.
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kRows = 4096;            // outputs per chunk
constexpr int64_t kParallelMin = 1 << 15;  // band elements below which one thread is faster

inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

struct Band {
  const double* a;
  int64_t lda, n, k;
  bool upper;
};

// t(r0:r1) = (A x)(r0:r1).
void chunk_product(const Band& b, const double* __restrict xs, double* __restrict t, int64_t r0, int64_t r1) {
  // Band column i against x: the stored column i, diagonal included.
  for (int64_t i = r0; i < r1; ++i) {
    const double* col = b.a + i * b.lda;
    const int64_t lo = b.upper ? max64(0, b.k - i) : 0, hi = b.upper ? b.k : min64(b.k, b.n - 1 - i);
    const int64_t j0 = b.upper ? i - b.k : i;  // band row r pairs with x(j0 + r)
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (int64_t r = lo; r <= hi; ++r) sum += col[r] * xs[j0 + r];
    t[i] = sum;
  }
  // The other columns' off-diagonal elements A(i, j): i in [j - k, j) (upper)
  // or (j, j + k] (lower).
  const int64_t j_begin = b.upper ? r0 + 1 : max64(0, r0 - b.k), j_end = b.upper ? min64(b.n, r1 + b.k) : r1 - 1;
  for (int64_t j = j_begin; j < j_end; ++j) {
    const int64_t i_lo = b.upper ? max64(r0, j - b.k) : max64(r0, j + 1), i_hi = b.upper ? min64(r1 - 1, j - 1) : min64(r1 - 1, j + b.k);
    if (i_lo > i_hi) continue;
    const double xj = xs[j];
    const double* col = b.a + j * b.lda;
    const int64_t shift = b.upper ? b.k - j : -j;  // A(i, j) is band row k + i - j (upper) or i - j (lower)
#pragma omp simd
    for (int64_t i = i_lo; i <= i_hi; ++i) t[i] += col[shift + i] * xj;
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
  std::vector<double> xs, t;
  if (use_a) {
    const double* xp = static_cast<const double*>(x->data);
    const int64_t incx = x->strides[0];
    xs.resize(static_cast<size_t>(n));
    t.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = xp[i * incx];
  }
  const int64_t chunks = (n + kRows - 1) / kRows;
#pragma omp parallel for schedule(static) if (n * (k + 1) >= kParallelMin)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t r0 = c * kRows, r1 = min64(n, r0 + kRows);
    if (use_a) chunk_product(b, xs.data(), t.data(), r0, r1);
    for (int64_t i = r0; i < r1; ++i) {
      double v = use_a ? alpha * t[static_cast<size_t>(i)] : 0.0;
      if (read_y) v += beta * yp[i * incy];
      yp[i * incy] = v;
    }
  }
  return KGB_OK;
}
