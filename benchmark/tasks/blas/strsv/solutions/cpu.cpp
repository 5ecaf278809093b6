// blas/strsv on the CPU: solves op(A) * z = x in place, f32, column-major A
// (uplo LOWER = 0 / UPPER = 1, trans N = 0 / T = 1 / C = 2, diag NON_UNIT = 0
// / UNIT = 1; the other triangle, and the diagonal for UNIT, are never read).
//
// Blocked substitution over blocks of kBlock unknowns, taken in solve order
// (forward when op(A) is lower triangular, backward otherwise). x is packed
// into a contiguous buffer first (any increment, negative ones included:
// data[i * inc] is element i) and written back at the end.
// - op N walks columns of A (unit stride): after a diagonal block is solved,
//   the unknowns still to come are updated right away with that block's
//   columns, x(rest) -= A(rest, B) * x(B), four columns per pass so x(rest)
//   is loaded and stored once per four columns.
// - op T/C walks columns of A as rows of op(A): before a diagonal block is
//   solved, its unknowns subtract dot products of their columns of A with
//   every unknown solved so far, x(B) -= A(done, B)^T * x(done), four columns
//   per pass sharing the loads of x(done).
// The diagonal blocks are solved in place (kBlock^2 / 2 operations each);
// the bulk of the work, reading the triangle once, is vectorised. Each block
// needs the previous one, so threads meet twice per block: OpenMP splits the
// updates only for large systems (n >= kParallelMin), where a block's update
// streams megabytes and the meeting costs little beside it.
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kBlock = 256;          // unknowns per diagonal block
constexpr int64_t kRowChunk = 2048;      // rows per parallel update chunk
constexpr int64_t kParallelMin = 8192;   // n from which the updates are split over threads

struct Solve {
  const float* a;
  int64_t lda, n;
  bool forward, unit;
  float* x;
};

// op N: x(r0:r1) -= A(r0:r1, c0:c1) * x(c0:c1), four columns per pass.
inline void update_columns(const Solve& s, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  float* __restrict xr = s.x;
  int64_t j = c0;
  for (; j + 4 <= c1; j += 4) {
    const float x0 = s.x[j], x1 = s.x[j + 1], x2 = s.x[j + 2], x3 = s.x[j + 3];
    const float* __restrict a0 = s.a + j * s.lda;
    const float* __restrict a1 = a0 + s.lda;
    const float* __restrict a2 = a1 + s.lda;
    const float* __restrict a3 = a2 + s.lda;
#pragma omp simd
    for (int64_t i = r0; i < r1; ++i) xr[i] -= (a0[i] * x0 + a1[i] * x1) + (a2[i] * x2 + a3[i] * x3);
  }
  for (; j < c1; ++j) {
    const float xj = s.x[j];
    const float* __restrict col = s.a + j * s.lda;
#pragma omp simd
    for (int64_t i = r0; i < r1; ++i) xr[i] -= col[i] * xj;
  }
}

// op T: returns sum over j in [r0, r1) of A(j, i) * x[j] (a unit-stride dot).
inline float column_dot(const Solve& s, int64_t i, int64_t r0, int64_t r1) {
  const float* __restrict col = s.a + i * s.lda;
  const float* __restrict xv = s.x;
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = r0; j < r1; ++j) sum += col[j] * xv[j];
  return sum;
}

// op T: x[i + q] -= sum over j in [r0, r1) of A(j, i + q) * x[j], q = 0..3,
// the four dot products sharing the loads of x.
inline void column_dots4(const Solve& s, int64_t i, int64_t r0, int64_t r1) {
  const float* __restrict a0 = s.a + i * s.lda;
  const float* __restrict a1 = a0 + s.lda;
  const float* __restrict a2 = a1 + s.lda;
  const float* __restrict a3 = a2 + s.lda;
  const float* __restrict xv = s.x;
  float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
#pragma omp simd reduction(+ : d0, d1, d2, d3)
  for (int64_t j = r0; j < r1; ++j) {
    const float v = xv[j];
    d0 += a0[j] * v;
    d1 += a1[j] * v;
    d2 += a2[j] * v;
    d3 += a3[j] * v;
  }
  s.x[i] -= d0;
  s.x[i + 1] -= d1;
  s.x[i + 2] -= d2;
  s.x[i + 3] -= d3;
}

// Solves the diagonal block [b0, b1) in place, in solve order.
void solve_block(const Solve& s, bool transposed, int64_t b0, int64_t b1) {
  const int64_t m = b1 - b0;
  for (int64_t t = 0; t < m; ++t) {
    const int64_t i = s.forward ? b0 + t : b1 - 1 - t;
    // Unknowns of this block already solved: [b0, i) forward, (i, b1) backward.
    const int64_t d0 = s.forward ? b0 : i + 1, d1 = s.forward ? i : b1;
    if (transposed) {
      float v = s.x[i] - column_dot(s, i, d0, d1);
      s.x[i] = s.unit ? v : v / s.a[i + i * s.lda];
    } else {
      // Column form: x_i is final once the earlier columns were applied.
      if (!s.unit) s.x[i] /= s.a[i + i * s.lda];
      const int64_t r0 = s.forward ? i + 1 : b0, r1 = s.forward ? b1 : i;  // later unknowns of the block
      const float xi = s.x[i];
      const float* col = s.a + i * s.lda;
      for (int64_t r = r0; r < r1; ++r) s.x[r] -= col[r] * xi;
    }
  }
}

}  // namespace

extern "C" int kgb_blas_strsv(int uplo, int trans, int diag, const kgb_tensor* A, kgb_tensor* x, kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const int64_t n = A->sizes[0];
  if (A->sizes[1] != n || x->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  const bool transposed = trans != 0;
  float* xp = static_cast<float*>(x->data);
  const int64_t incx = x->strides[0];
  std::vector<float> xs(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = xp[i * incx];

  Solve s{static_cast<const float*>(A->data), n > 1 ? A->strides[1] : 1, n, (uplo == 0) != transposed, diag == 1, xs.data()};
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel if (n >= kParallelMin)
  for (int64_t k = 0; k < blocks; ++k) {
    // Block k in solve order covers [b0, b1).
    const int64_t kb = s.forward ? k : blocks - 1 - k;
    const int64_t b0 = kb * kBlock, b1 = b0 + kBlock < n ? b0 + kBlock : n;
    if (transposed) {
      // x(B) -= A(done, B)^T x(done): done = [0, b0) forward, [b1, n) backward.
      const int64_t d0 = s.forward ? 0 : b1, d1 = s.forward ? b0 : n;
      const int64_t quads = (b1 - b0) / 4;
#pragma omp for schedule(static)
      for (int64_t q = 0; q < quads; ++q) column_dots4(s, b0 + 4 * q, d0, d1);
#pragma omp single
      for (int64_t i = b0 + 4 * quads; i < b1; ++i) s.x[i] -= column_dot(s, i, d0, d1);
#pragma omp single
      solve_block(s, true, b0, b1);
    } else {
#pragma omp single
      solve_block(s, false, b0, b1);
      // x(rest) -= A(rest, B) x(B): rest = [b1, n) forward, [0, b0) backward.
      const int64_t r0 = s.forward ? b1 : 0, r1 = s.forward ? n : b0;
      const int64_t chunks = (r1 - r0 + kRowChunk - 1) / kRowChunk;
#pragma omp for schedule(static)
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t lo = r0 + c * kRowChunk, hi = lo + kRowChunk < r1 ? lo + kRowChunk : r1;
        update_columns(s, lo, hi, b0, b1);
      }
    }
  }
  for (int64_t i = 0; i < n; ++i) xp[i * incx] = xs[static_cast<size_t>(i)];
  return KGB_OK;
}
