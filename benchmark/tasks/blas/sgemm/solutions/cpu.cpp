// blas/sgemm on the CPU: C = alpha * op(A) * op(B) + beta * C, column-major.
//
// Column-major C (m x n, ldc) is the row-major matrix C^T (n x m, row pitch
// ldc), and C^T = op(B)^T * op(A)^T, so the kernel runs a row-major GEMM on
// transposed views: no data is moved, only strides are swapped. The GEMM packs
// KC-deep slices of both operands into contiguous micro-panels (absorbing any
// stride and transpose), and a 6 x 16 register-blocked micro-kernel (AVX2/FMA
// when available, a portable loop otherwise) sweeps them, output tiles spread
// over OpenMP threads. The first K slice applies beta (never reading C when
// beta == 0, as BLAS requires), later slices accumulate.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define KGB_SGEMM_AVX2 1
#endif

namespace {

constexpr int64_t MR = 6;    // register tile rows
constexpr int64_t NR = 16;   // register tile columns (two 8-float vectors)
constexpr int64_t KC = 256;  // depth of one packed slice: a 16 KB B micro-panel stays in L1
constexpr int64_t MC = 96;   // rows per parallel tile (multiple of MR): 96 KB of packed A in L2
constexpr int64_t NB = 256;  // columns per parallel tile (multiple of NR)
constexpr int64_t NC = 2048; // columns packed at once (multiple of NB)

// c[i, j] = alpha * acc[i][j] + beta * c[i, j] for the valid mr x nr part;
// beta == 0 never reads c.
inline void store_tile(const float* acc, float* c, int64_t ldc, int64_t mr, int64_t nr, float alpha, float beta) {
  for (int64_t i = 0; i < mr; ++i) {
    float* row = c + i * ldc;
    if (beta == 0.0f)
      for (int64_t j = 0; j < nr; ++j) row[j] = alpha * acc[i * NR + j];
    else
      for (int64_t j = 0; j < nr; ++j) row[j] = alpha * acc[i * NR + j] + beta * row[j];
  }
}

#if KGB_SGEMM_AVX2
// Twelve named accumulators keep the whole 6 x 16 tile in ymm registers.
inline void micro(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc, int64_t mr, int64_t nr,
                  float alpha, float beta) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(), c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps(), c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(bp), b1 = _mm256_loadu_ps(bp + 8);
    __m256 a = _mm256_broadcast_ss(ap + 0); c00 = _mm256_fmadd_ps(a, b0, c00); c01 = _mm256_fmadd_ps(a, b1, c01);
    a = _mm256_broadcast_ss(ap + 1); c10 = _mm256_fmadd_ps(a, b0, c10); c11 = _mm256_fmadd_ps(a, b1, c11);
    a = _mm256_broadcast_ss(ap + 2); c20 = _mm256_fmadd_ps(a, b0, c20); c21 = _mm256_fmadd_ps(a, b1, c21);
    a = _mm256_broadcast_ss(ap + 3); c30 = _mm256_fmadd_ps(a, b0, c30); c31 = _mm256_fmadd_ps(a, b1, c31);
    a = _mm256_broadcast_ss(ap + 4); c40 = _mm256_fmadd_ps(a, b0, c40); c41 = _mm256_fmadd_ps(a, b1, c41);
    a = _mm256_broadcast_ss(ap + 5); c50 = _mm256_fmadd_ps(a, b0, c50); c51 = _mm256_fmadd_ps(a, b1, c51);
    ap += MR;
    bp += NR;
  }
  const __m256 acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  if (mr == MR && nr == NR) {
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    for (int i = 0; i < MR; ++i) {
      float* row = c + i * ldc;
      const __m256 s0 = _mm256_mul_ps(va, acc[i][0]), s1 = _mm256_mul_ps(va, acc[i][1]);
      if (beta == 0.0f) {
        _mm256_storeu_ps(row, s0);
        _mm256_storeu_ps(row + 8, s1);
      } else {
        _mm256_storeu_ps(row, _mm256_fmadd_ps(vb, _mm256_loadu_ps(row), s0));
        _mm256_storeu_ps(row + 8, _mm256_fmadd_ps(vb, _mm256_loadu_ps(row + 8), s1));
      }
    }
    return;
  }
  alignas(32) float tmp[MR * NR];
  for (int i = 0; i < MR; ++i) {
    _mm256_store_ps(tmp + i * NR, acc[i][0]);
    _mm256_store_ps(tmp + i * NR + 8, acc[i][1]);
  }
  store_tile(tmp, c, ldc, mr, nr, alpha, beta);
}
#else
// Portable micro-kernel with GCC's generic 16-byte vectors (NEON on aarch64,
// SSE on plain x86-64, scalar code elsewhere). The accumulator array is only
// read element by element after the loop, so it lives in registers.
inline void micro(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc, int64_t mr, int64_t nr,
                  float alpha, float beta) {
  typedef float V __attribute__((vector_size(16)));
  constexpr int64_t W = 4, NV = NR / W;
  V acc[MR][NV];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q) acc[i][q] = V{};
  for (int64_t p = 0; p < kc; ++p) {
    V b[NV];
    for (int64_t q = 0; q < NV; ++q) memcpy(&b[q], bp + p * NR + q * W, sizeof(V));
    for (int64_t i = 0; i < MR; ++i) {
      const float a = ap[p * MR + i];
      for (int64_t q = 0; q < NV; ++q) acc[i][q] += a * b[q];
    }
  }
  float tmp[MR * NR];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q)
      for (int64_t l = 0; l < W; ++l) tmp[i * NR + q * W + l] = acc[i][q][l];
  store_tile(tmp, c, ldc, mr, nr, alpha, beta);
}
#endif

// MR rows x kc of a strided matrix (element (i, p) at a[i*rs + p*cs]) into a
// p-major micro-panel; rows past `rows` are zero.
void pack_a(const float* a, int64_t rs, int64_t cs, int64_t rows, int64_t kc, float* dst) {
  if (rows == MR && cs == 1) {
    for (int64_t i = 0; i < MR; ++i)
      for (int64_t p = 0; p < kc; ++p) dst[p * MR + i] = a[i * rs + p];
    return;
  }
  for (int64_t p = 0; p < kc; ++p)
    for (int64_t i = 0; i < MR; ++i) dst[p * MR + i] = i < rows ? a[i * rs + p * cs] : 0.0f;
}

// kc x NR columns of a strided matrix into a p-major micro-panel.
void pack_b(const float* b, int64_t rs, int64_t cs, int64_t cols, int64_t kc, float* dst) {
  if (cols == NR && cs == 1) {
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t j = 0; j < NR; ++j) dst[p * NR + j] = b[p * rs + j];
    return;
  }
  for (int64_t p = 0; p < kc; ++p)
    for (int64_t j = 0; j < NR; ++j) dst[p * NR + j] = j < cols ? b[p * rs + j * cs] : 0.0f;
}

// Row-major GEMM on strided views: C (m x n, row pitch ldc, unit column
// stride) = alpha * A (m x k) * B (k x n) + beta * C, with k >= 1, alpha != 0.
void gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
          int64_t bcs, float* c, int64_t ldc, float alpha, float beta) {
  const int64_t m_panels = (m + MR - 1) / MR;
  const int64_t kc_max = std::min(k, KC);
  std::vector<float> apack(static_cast<size_t>(m_panels * MR * kc_max));
  std::vector<float> bpack(static_cast<size_t>((std::min(n, NC) + NR - 1) / NR * NR * kc_max));
  float* ap_all = apack.data();
  float* bp_all = bpack.data();

  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = std::min(NC, n - jc);
    const int64_t n_panels = (nc + NR - 1) / NR;
    const int64_t m_blocks = (m + MC - 1) / MC, n_blocks = (nc + NB - 1) / NB;
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min(KC, k - pc);
      const float slice_beta = pc == 0 ? beta : 1.0f;  // later slices accumulate onto the first
#pragma omp parallel
      {
#pragma omp for schedule(static) nowait
        for (int64_t jp = 0; jp < n_panels; ++jp) {
          const int64_t j0 = jc + jp * NR;
          pack_b(b + pc * brs + j0 * bcs, brs, bcs, std::min(NR, n - j0), kc, bp_all + jp * NR * kc);
        }
#pragma omp for schedule(static)
        for (int64_t ip = 0; ip < m_panels; ++ip) {
          const int64_t i0 = ip * MR;
          pack_a(a + i0 * ars + pc * acs, ars, acs, std::min(MR, m - i0), kc, ap_all + ip * MR * kc);
        }
        // The implicit barrier above guarantees both packs are complete.
#pragma omp for collapse(2) schedule(dynamic, 1)
        for (int64_t ib = 0; ib < m_blocks; ++ib)
          for (int64_t jb = 0; jb < n_blocks; ++jb) {
            const int64_t i_end = std::min(m, (ib + 1) * MC), j_end = std::min(nc, (jb + 1) * NB);
            for (int64_t jr = jb * NB; jr < j_end; jr += NR)
              for (int64_t ir = ib * MC; ir < i_end; ir += MR)
                micro(kc, ap_all + (ir / MR) * MR * kc, bp_all + (jr / NR) * NR * kc, c + ir * ldc + jc + jr, ldc,
                      std::min(MR, m - ir), std::min(NR, nc - jr), alpha, slice_beta);
          }
      }
    }
  }
}

// C := beta * C on a row-major view, never reading C when beta == 0.
void scale(int64_t m, int64_t n, float* c, int64_t ldc, float beta) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    if (beta == 0.0f)
      for (int64_t j = 0; j < n; ++j) row[j] = 0.0f;
    else
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
  }
}

}  // namespace

extern "C" int kgb_blas_sgemm(int64_t transa, int64_t transb, double alpha, const kgb_tensor* A, const kgb_tensor* B,
                              double beta, kgb_tensor* C, kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  if ((transa != 0 && transa != 1) || (transb != 0 && transb != 1)) return KGB_ERR_INVALID;
  const int64_t m = C->sizes[0], n = C->sizes[1];
  const int64_t k = transa ? A->sizes[0] : A->sizes[1];
  if ((transa ? A->sizes[1] : A->sizes[0]) != m || (transb ? B->sizes[1] : B->sizes[0]) != k ||
      (transb ? B->sizes[0] : B->sizes[1]) != n)
    return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;

  const float fa = static_cast<float>(alpha), fb = static_cast<float>(beta);
  const int64_t as0 = A->strides[0], as1 = A->strides[1], bs0 = B->strides[0], bs1 = B->strides[1];
  const int64_t cs0 = C->strides[0], cs1 = C->strides[1];
  float* c = static_cast<float*>(C->data);

  // C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m), all as strided views.
  const int64_t lrs = transb ? bs0 : bs1, lcs = transb ? bs1 : bs0;  // op(B)^T: (j, l)
  const int64_t rrs = transa ? as0 : as1, rcs = transa ? as1 : as0;  // op(A)^T: (l, i)

  // C^T needs unit stride along i, i.e. C->strides[0] == 1 (always so for
  // BLAS views); any other layout goes through a dense copy of C^T.
  const bool direct = cs0 == 1 || m == 1;
  std::vector<float> work;
  float* ct = c;
  int64_t ldct = cs1;
  if (!direct) {
    work.assign(static_cast<size_t>(n * m), 0.0f);
    ct = work.data();
    ldct = m;
    if (fb != 0.0f)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) ct[j * m + i] = c[i * cs0 + j * cs1];
  }

  if (fa == 0.0f || k == 0)
    scale(n, m, ct, ldct, fb);  // A and B are not read
  else
    gemm(n, m, k, static_cast<const float*>(B->data), lrs, lcs, static_cast<const float*>(A->data), rrs, rcs, ct,
         ldct, fa, fb);

  if (!direct)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) c[i * cs0 + j * cs1] = ct[j * m + i];
  return KGB_OK;
}
