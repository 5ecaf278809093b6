// blas/stbmv on the CPU: x := op(A) * x for an f32 triangular band matrix in
// (k + 1) x n column-major band storage (uplo LOWER = 0: diagonal in band row
// 0; UPPER = 1: diagonal in band row k; trans N = 0 / T = 1 / C = 2; diag
// NON_UNIT = 0 / UNIT = 1). The unused band corners, and the diagonal row for
// UNIT, are never read.
//
// x is packed into a contiguous buffer (any increment, negative ones
// included: data[i * inc] is element i), the product is formed into a second
// buffer and written back, so the in-place update has no ordering hazard.
// The outputs are split over OpenMP threads in chunks of kRows rows, each
// chunk computed independently:
// - op T/C: output i is a dot product of band column i with a window of x,
//   both unit stride;
// - op N: the band columns that touch the chunk are applied as axpy updates
//   of their (clipped) row range, also unit stride.
// Both loops vectorise.
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kRows = 4096;          // outputs per chunk
constexpr int64_t kParallelMin = 1 << 15;  // band elements below which one thread is faster

inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

struct Band {
  const float* a;
  int64_t lda, n, k;
  bool upper, unit;
};

// op T: y(i) = sum over j of A(j, i) * x(j), band column i against x.
void chunk_transposed(const Band& b, const float* __restrict xs, float* __restrict y, int64_t r0, int64_t r1) {
  for (int64_t i = r0; i < r1; ++i) {
    const float* col = b.a + i * b.lda;
    // Band rows [lo, hi] of column i are used; band row r multiplies x(j0 + r).
    int64_t lo, hi, j0;
    if (b.upper) {
      lo = max64(0, b.k - i);
      hi = b.unit ? b.k - 1 : b.k;
      j0 = i - b.k;
    } else {
      lo = b.unit ? 1 : 0;
      hi = min64(b.k, b.n - 1 - i);
      j0 = i;
    }
    float sum = b.unit ? xs[i] : 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t r = lo; r <= hi; ++r) sum += col[r] * xs[j0 + r];
    y[i] = sum;
  }
}

// op N: y(r0:r1) = sum over columns j of A(:, j) * x(j), clipped to the chunk.
void chunk_plain(const Band& b, const float* __restrict xs, float* __restrict y, int64_t r0, int64_t r1) {
  for (int64_t i = r0; i < r1; ++i) y[i] = b.unit ? xs[i] : 0.0f;
  // Column j holds A(i, j) for i in [j - k, j] (upper) or [j, j + k] (lower).
  const int64_t j_begin = b.upper ? r0 : max64(0, r0 - b.k), j_end = b.upper ? min64(b.n, r1 + b.k) : r1;
  for (int64_t j = j_begin; j < j_end; ++j) {
    int64_t i_lo = b.upper ? max64(r0, j - b.k) : max64(r0, j), i_hi = b.upper ? min64(r1 - 1, j) : min64(r1 - 1, j + b.k);
    if (b.unit) {  // the diagonal (i == j) was added above
      if (b.upper && i_hi == j) --i_hi;
      if (!b.upper && i_lo == j) ++i_lo;
    }
    if (i_lo > i_hi) continue;
    const float xj = xs[j];
    // A(i, j) sits at band row k + i - j (upper) or i - j (lower).
    const float* col = b.a + j * b.lda;
    const int64_t shift = b.upper ? b.k - j : -j;
#pragma omp simd
    for (int64_t i = i_lo; i <= i_hi; ++i) y[i] += col[shift + i] * xj;
  }
}

}  // namespace

extern "C" int kgb_blas_stbmv(int uplo, int trans, int diag, const kgb_tensor* A, kgb_tensor* x, kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const int64_t k = A->sizes[0] - 1, n = A->sizes[1];
  if (k < 0 || x->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  const Band b{static_cast<const float*>(A->data), n > 1 ? A->strides[1] : k + 1, n, k, uplo == 1, diag == 1};
  float* xp = static_cast<float*>(x->data);
  const int64_t incx = x->strides[0];
  std::vector<float> xs(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = xp[i * incx];
  const int64_t chunks = (n + kRows - 1) / kRows;
  const bool transposed = trans != 0;
#pragma omp parallel for schedule(static) if (n * (k + 1) >= kParallelMin)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t r0 = c * kRows, r1 = min64(n, r0 + kRows);
    if (transposed)
      chunk_transposed(b, xs.data(), y.data(), r0, r1);
    else
      chunk_plain(b, xs.data(), y.data(), r0, r1);
  }
  for (int64_t i = 0; i < n; ++i) xp[i * incx] = y[static_cast<size_t>(i)];
  return KGB_OK;
}
