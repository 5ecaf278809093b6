// blas/dgemm_batched on the CPU: C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b]
// for every item of the pointer arrays, column-major, in double.
//
// Column-major C (m x n, ldc) is the row-major matrix C^T (n x m, row pitch
// ldc), and C^T = op(B)^T * op(A)^T, so each product runs as a row-major GEMM
// on transposed views: no data moves, only strides are swapped. The work is a
// flat list of (item, block of MC rows of C^T) units spread over the OpenMP
// threads with dynamic scheduling, so a batch of many small matrices and a
// batch of a few large ones both keep every core busy. A unit packs KC-deep
// slices of its operands into contiguous micro-panels (absorbing any stride or
// transpose, repeated items are simply packed again) and sweeps them with a
// 6 x 8 register-blocked micro-kernel (AVX2/FMA when available, portable
// vectors otherwise). Every item is reached through its own data pointer: the
// items of a list are not back to back. The first K slice applies beta
// (never reading C when beta == 0, as BLAS requires), later slices accumulate.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define KGB_DGEMM_AVX2 1
#endif

namespace {

constexpr int64_t MR = 6;    // register tile rows
constexpr int64_t NR = 8;    // register tile columns (two 4-double vectors)
constexpr int64_t KC = 256;  // depth of one packed slice: a 16 KB B micro-panel stays in L1
constexpr int64_t MC = 96;   // rows per work unit (multiple of MR): 192 KB of packed A in L2
constexpr int64_t NC = 1024; // columns packed at once (multiple of NR)

// c[i, j] = alpha * acc[i][j] + beta * c[i, j] for the valid mr x nr part;
// beta == 0 never reads c.
inline void store_tile(const double* acc, double* c, int64_t ldc, int64_t mr, int64_t nr, double alpha, double beta) {
  for (int64_t i = 0; i < mr; ++i) {
    double* row = c + i * ldc;
    if (beta == 0.0)
      for (int64_t j = 0; j < nr; ++j) row[j] = alpha * acc[i * NR + j];
    else
      for (int64_t j = 0; j < nr; ++j) row[j] = alpha * acc[i * NR + j] + beta * row[j];
  }
}

#if KGB_DGEMM_AVX2
// Twelve named accumulators keep the whole 6 x 8 tile in ymm registers.
inline void micro(int64_t kc, const double* ap, const double* bp, double* c, int64_t ldc, int64_t mr, int64_t nr,
                  double alpha, double beta) {
  __m256d c00 = _mm256_setzero_pd(), c01 = _mm256_setzero_pd(), c10 = _mm256_setzero_pd(), c11 = _mm256_setzero_pd();
  __m256d c20 = _mm256_setzero_pd(), c21 = _mm256_setzero_pd(), c30 = _mm256_setzero_pd(), c31 = _mm256_setzero_pd();
  __m256d c40 = _mm256_setzero_pd(), c41 = _mm256_setzero_pd(), c50 = _mm256_setzero_pd(), c51 = _mm256_setzero_pd();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256d b0 = _mm256_loadu_pd(bp), b1 = _mm256_loadu_pd(bp + 4);
    __m256d a = _mm256_broadcast_sd(ap + 0); c00 = _mm256_fmadd_pd(a, b0, c00); c01 = _mm256_fmadd_pd(a, b1, c01);
    a = _mm256_broadcast_sd(ap + 1); c10 = _mm256_fmadd_pd(a, b0, c10); c11 = _mm256_fmadd_pd(a, b1, c11);
    a = _mm256_broadcast_sd(ap + 2); c20 = _mm256_fmadd_pd(a, b0, c20); c21 = _mm256_fmadd_pd(a, b1, c21);
    a = _mm256_broadcast_sd(ap + 3); c30 = _mm256_fmadd_pd(a, b0, c30); c31 = _mm256_fmadd_pd(a, b1, c31);
    a = _mm256_broadcast_sd(ap + 4); c40 = _mm256_fmadd_pd(a, b0, c40); c41 = _mm256_fmadd_pd(a, b1, c41);
    a = _mm256_broadcast_sd(ap + 5); c50 = _mm256_fmadd_pd(a, b0, c50); c51 = _mm256_fmadd_pd(a, b1, c51);
    ap += MR;
    bp += NR;
  }
  const __m256d acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  if (mr == MR && nr == NR) {
    const __m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta);
    for (int i = 0; i < MR; ++i) {
      double* row = c + i * ldc;
      const __m256d s0 = _mm256_mul_pd(va, acc[i][0]), s1 = _mm256_mul_pd(va, acc[i][1]);
      if (beta == 0.0) {
        _mm256_storeu_pd(row, s0);
        _mm256_storeu_pd(row + 4, s1);
      } else {
        _mm256_storeu_pd(row, _mm256_fmadd_pd(vb, _mm256_loadu_pd(row), s0));
        _mm256_storeu_pd(row + 4, _mm256_fmadd_pd(vb, _mm256_loadu_pd(row + 4), s1));
      }
    }
    return;
  }
  alignas(32) double tmp[MR * NR];
  for (int i = 0; i < MR; ++i) {
    _mm256_store_pd(tmp + i * NR, acc[i][0]);
    _mm256_store_pd(tmp + i * NR + 4, acc[i][1]);
  }
  store_tile(tmp, c, ldc, mr, nr, alpha, beta);
}
#else
// Portable micro-kernel with GCC's generic 16-byte vectors (NEON on aarch64,
// SSE2 on plain x86-64, scalar code elsewhere).
inline void micro(int64_t kc, const double* ap, const double* bp, double* c, int64_t ldc, int64_t mr, int64_t nr,
                  double alpha, double beta) {
  typedef double V __attribute__((vector_size(16)));
  constexpr int64_t W = 2, NV = NR / W;
  V acc[MR][NV];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q) acc[i][q] = V{};
  for (int64_t p = 0; p < kc; ++p) {
    V b[NV];
    for (int64_t q = 0; q < NV; ++q) memcpy(&b[q], bp + p * NR + q * W, sizeof(V));
    for (int64_t i = 0; i < MR; ++i) {
      const double a = ap[p * MR + i];
      for (int64_t q = 0; q < NV; ++q) acc[i][q] += a * b[q];
    }
  }
  double tmp[MR * NR];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q)
      for (int64_t l = 0; l < W; ++l) tmp[i * NR + q * W + l] = acc[i][q][l];
  store_tile(tmp, c, ldc, mr, nr, alpha, beta);
}
#endif

// A strided matrix: element (r, q) at data[r * rs + q * cs].
struct View {
  const double* data;
  int64_t rs, cs;
};

// MR rows x kc of `a` starting at (r0, p0) into a p-major micro-panel; rows
// past `rows` are zero. Fast paths for unit stride along either index.
void pack_rows(View a, int64_t r0, int64_t p0, int64_t rows, int64_t kc, double* dst) {
  const double* base = a.data + r0 * a.rs + p0 * a.cs;
  if (rows == MR && a.cs == 1) {
    for (int64_t i = 0; i < MR; ++i)
      for (int64_t p = 0; p < kc; ++p) dst[p * MR + i] = base[i * a.rs + p];
  } else if (rows == MR && a.rs == 1) {
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t i = 0; i < MR; ++i) dst[p * MR + i] = base[p * a.cs + i];
  } else {
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t i = 0; i < MR; ++i) dst[p * MR + i] = i < rows ? base[i * a.rs + p * a.cs] : 0.0;
  }
}

// kc x NR of `b` starting at (p0, q0) into a p-major micro-panel.
void pack_cols(View b, int64_t p0, int64_t q0, int64_t cols, int64_t kc, double* dst) {
  const double* base = b.data + p0 * b.rs + q0 * b.cs;
  if (cols == NR && b.cs == 1) {
    for (int64_t p = 0; p < kc; ++p) memcpy(dst + p * NR, base + p * b.rs, NR * sizeof(double));
  } else if (cols == NR && b.rs == 1) {
    for (int64_t j = 0; j < NR; ++j)
      for (int64_t p = 0; p < kc; ++p) dst[p * NR + j] = base[j * b.cs + p];
  } else {
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t j = 0; j < NR; ++j) dst[p * NR + j] = j < cols ? base[p * b.rs + j * b.cs] : 0.0;
  }
}

// One product as a row-major GEMM: out (rows x cols, row pitch ldo, unit
// column stride) = alpha * L (rows x k) * R (k x cols) + beta * out, for the
// rows [r_begin, r_end). k >= 1 and alpha != 0.
void gemm_rows(int64_t r_begin, int64_t r_end, int64_t cols, int64_t k, View l, View r, double* out, int64_t ldo,
               double alpha, double beta, double* apack, double* bpack) {
  const int64_t rows = r_end - r_begin;
  for (int64_t pc = 0; pc < k; pc += KC) {
    const int64_t kc = std::min(KC, k - pc);
    const double slice_beta = pc == 0 ? beta : 1.0;  // later slices accumulate onto the first
    for (int64_t ir = 0; ir < rows; ir += MR) pack_rows(l, r_begin + ir, pc, std::min(MR, rows - ir), kc, apack + ir * kc);
    for (int64_t jc = 0; jc < cols; jc += NC) {
      const int64_t nc = std::min(NC, cols - jc);
      for (int64_t jr = 0; jr < nc; jr += NR) pack_cols(r, pc, jc + jr, std::min(NR, nc - jr), kc, bpack + jr * kc);
      for (int64_t jr = 0; jr < nc; jr += NR)
        for (int64_t ir = 0; ir < rows; ir += MR)
          micro(kc, apack + ir * kc, bpack + jr * kc, out + (r_begin + ir) * ldo + jc + jr, ldo, std::min(MR, rows - ir),
                std::min(NR, nc - jr), alpha, slice_beta);
    }
  }
}

// C := beta * C on a column-major view, never reading C when beta == 0.
void scale(kgb_tensor* c, double beta) {
  double* p = static_cast<double*>(c->data);
  for (int64_t j = 0; j < c->sizes[1]; ++j)
    for (int64_t i = 0; i < c->sizes[0]; ++i) {
      double* e = p + i * c->strides[0] + j * c->strides[1];
      *e = beta == 0.0 ? 0.0 : beta * *e;
    }
}

}  // namespace

extern "C" int kgb_blas_dgemm_batched(int transa, int transb, double alpha, const kgb_tensor_list* Aarray,
                                      const kgb_tensor_list* Barray, double beta, kgb_tensor_list* Carray,
                                      kgb_stream stream) {
  (void)stream;
  const int64_t batch = Carray->count;
  if (Aarray->count != batch || Barray->count != batch) return KGB_ERR_INVALID;
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A0 = Aarray->items[0];
  const kgb_tensor* B0 = Barray->items[0];
  const kgb_tensor* C0 = Carray->items[0];
  if (A0->dtype != KGB_F64 || B0->dtype != KGB_F64 || C0->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (A0->rank != 2 || B0->rank != 2 || C0->rank != 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;  // CUBLAS_OP_C of a real matrix is its transpose
  const int64_t m = C0->sizes[0], n = C0->sizes[1], k = ta ? A0->sizes[0] : A0->sizes[1];
  if ((ta ? A0->sizes[1] : A0->sizes[0]) != m || (tb ? B0->sizes[1] : B0->sizes[0]) != k ||
      (tb ? B0->sizes[0] : B0->sizes[1]) != n)
    return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;

  if (alpha == 0.0 || k == 0) {  // A and B are not read
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < batch; ++b) scale(Carray->items[b], beta);
    return KGB_OK;
  }

  // Every item of a list shares its sizes and strides (one lda, ldb, ldc per call).
  const int64_t as0 = A0->strides[0], as1 = A0->strides[1], bs0 = B0->strides[0], bs1 = B0->strides[1];
  const int64_t cs0 = C0->strides[0], cs1 = C0->strides[1];
  // C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m); C^T needs unit stride along m.
  const int64_t lrs = tb ? bs0 : bs1, lcs = tb ? bs1 : bs0;  // op(B)^T: (j, l)
  const int64_t rrs = ta ? as0 : as1, rcs = ta ? as1 : as0;  // op(A)^T: (l, i)
  const bool direct = cs0 == 1 || m == 1;

  const int64_t row_blocks = (n + MC - 1) / MC;
  const int64_t units = batch * row_blocks;
#pragma omp parallel
  {
    std::vector<double> apack(static_cast<size_t>(MC * std::min(k, KC)));
    std::vector<double> bpack(static_cast<size_t>((std::min(m, NC) + NR - 1) / NR * NR * std::min(k, KC)));
    std::vector<double> dense;  // C^T of an item whose C is not column-major
#pragma omp for schedule(dynamic, 1)
    for (int64_t u = 0; u < units; ++u) {
      const int64_t b = u / row_blocks, rb = u % row_blocks;
      const View l{static_cast<const double*>(Barray->items[b]->data), lrs, lcs};
      const View r{static_cast<const double*>(Aarray->items[b]->data), rrs, rcs};
      double* c = static_cast<double*>(Carray->items[b]->data);
      const int64_t r_begin = rb * MC, r_end = std::min(n, r_begin + MC);
      if (direct) {
        gemm_rows(r_begin, r_end, m, k, l, r, c, cs1, alpha, beta, apack.data(), bpack.data());
        continue;
      }
      // Any other C layout goes through a dense copy of this unit's rows of C^T.
      dense.assign(static_cast<size_t>(n * m), 0.0);
      for (int64_t j = r_begin; j < r_end; ++j)
        for (int64_t i = 0; i < m && beta != 0.0; ++i) dense[j * m + i] = c[i * cs0 + j * cs1];
      gemm_rows(r_begin, r_end, m, k, l, r, dense.data(), m, alpha, beta, apack.data(), bpack.data());
      for (int64_t j = r_begin; j < r_end; ++j)
        for (int64_t i = 0; i < m; ++i) c[i * cs0 + j * cs1] = dense[j * m + i];
    }
  }
  return KGB_OK;
}
