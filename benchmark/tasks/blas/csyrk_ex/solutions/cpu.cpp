// blas/csyrk_ex on the CPU: the uplo triangle of C becomes
// alpha * op(A) op(A)^T + beta * C for complex float, no conjugation,
// column-major.
//
// C(i, j) = sum over l of P(i, l) P(j, l) with P = op(A) (n x k). Column-major
// C is the row-major matrix C^T (row j, column i, unit stride along i), so the
// update is the row-major complex GEMM C^T = P * P^T restricted to one
// triangle, both operands strided views of A (no copy). The output is cut into
// (MC rows x NB columns) units, only those that meet the triangle, spread over
// the OpenMP threads; a unit packs KC-deep slices of its operands into
// micro-panels with the real and imaginary parts split, and a 4 x 8
// register-blocked micro-kernel does four real FMAs per complex product on
// 8-float vectors (AVX2/FMA, or portable vectors). Units inside the triangle
// write C directly (complex alpha and beta applied once per tile, beta == 0
// never reading C); units crossing the diagonal compute alpha * P P^T into a
// scratch tile and store only their triangle elements. alpha == 0 or k == 0
// only scale the triangle.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define KGB_CSYRK_AVX2 1
#endif

namespace {

struct cfloat {
  float re, im;
};

constexpr int64_t MR = 4;    // register tile rows
constexpr int64_t NR = 8;    // register tile columns (one 8-float vector per part)
constexpr int64_t KC = 256;  // depth of one packed slice: a 16 KB B micro-panel stays in L1
constexpr int64_t MC = 64;   // rows per work unit (multiple of MR)
constexpr int64_t NB = 256;  // columns per work unit (multiple of NR)

// c[i, j] = alpha * acc + beta * c[i, j] for the valid mr x nr part, acc in
// split form (re[i * NR + j], im[i * NR + j]); beta == 0 never reads c.
void store_tile(const float* re, const float* im, cfloat* c, int64_t ldc, int64_t mr, int64_t nr, cfloat alpha, cfloat beta,
                bool read_c) {
  for (int64_t i = 0; i < mr; ++i) {
    cfloat* row = c + i * ldc;
    for (int64_t j = 0; j < nr; ++j) {
      const float sr = re[i * NR + j], si = im[i * NR + j];
      float rr = alpha.re * sr - alpha.im * si, ri = alpha.re * si + alpha.im * sr;
      if (read_c) {
        const cfloat old = row[j];
        rr += beta.re * old.re - beta.im * old.im;
        ri += beta.re * old.im + beta.im * old.re;
      }
      row[j] = cfloat{rr, ri};
    }
  }
}

#if KGB_CSYRK_AVX2
// Eight named accumulators (real and imaginary parts of four rows) in ymm registers.
void micro(int64_t kc, const float* ap, const float* bp, float* re, float* im) {
  __m256 r0 = _mm256_setzero_ps(), r1 = _mm256_setzero_ps(), r2 = _mm256_setzero_ps(), r3 = _mm256_setzero_ps();
  __m256 i0 = _mm256_setzero_ps(), i1 = _mm256_setzero_ps(), i2 = _mm256_setzero_ps(), i3 = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 br = _mm256_loadu_ps(bp), bi = _mm256_loadu_ps(bp + NR);
#define KGB_CGEMM_ROW(k, R, I)                                              \
  {                                                                         \
    const __m256 ar = _mm256_broadcast_ss(ap + k), ai = _mm256_broadcast_ss(ap + MR + k); \
    R = _mm256_fmadd_ps(ar, br, R);                                         \
    R = _mm256_fnmadd_ps(ai, bi, R);                                        \
    I = _mm256_fmadd_ps(ar, bi, I);                                         \
    I = _mm256_fmadd_ps(ai, br, I);                                         \
  }
    KGB_CGEMM_ROW(0, r0, i0)
    KGB_CGEMM_ROW(1, r1, i1)
    KGB_CGEMM_ROW(2, r2, i2)
    KGB_CGEMM_ROW(3, r3, i3)
#undef KGB_CGEMM_ROW
    ap += 2 * MR;
    bp += 2 * NR;
  }
  _mm256_storeu_ps(re + 0 * NR, r0); _mm256_storeu_ps(re + 1 * NR, r1);
  _mm256_storeu_ps(re + 2 * NR, r2); _mm256_storeu_ps(re + 3 * NR, r3);
  _mm256_storeu_ps(im + 0 * NR, i0); _mm256_storeu_ps(im + 1 * NR, i1);
  _mm256_storeu_ps(im + 2 * NR, i2); _mm256_storeu_ps(im + 3 * NR, i3);
}
#else
// Portable micro-kernel with GCC's generic 16-byte vectors.
void micro(int64_t kc, const float* ap, const float* bp, float* re, float* im) {
  typedef float V __attribute__((vector_size(16)));
  constexpr int64_t W = 4, NV = NR / W;
  V r[MR][NV], s[MR][NV];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q) r[i][q] = s[i][q] = V{};
  for (int64_t p = 0; p < kc; ++p) {
    V br[NV], bi[NV];
    for (int64_t q = 0; q < NV; ++q) {
      memcpy(&br[q], bp + p * 2 * NR + q * W, sizeof(V));
      memcpy(&bi[q], bp + p * 2 * NR + NR + q * W, sizeof(V));
    }
    for (int64_t i = 0; i < MR; ++i) {
      const float ar = ap[p * 2 * MR + i], ai = ap[p * 2 * MR + MR + i];
      for (int64_t q = 0; q < NV; ++q) {
        r[i][q] += ar * br[q] - ai * bi[q];
        s[i][q] += ar * bi[q] + ai * br[q];
      }
    }
  }
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q)
      for (int64_t l = 0; l < W; ++l) {
        re[i * NR + q * W + l] = r[i][q][l];
        im[i * NR + q * W + l] = s[i][q][l];
      }
}
#endif

// A strided complex matrix, element (r, q) at data[r * rs + q * cs].
struct View {
  const cfloat* data;
  int64_t rs, cs;
};

// MR rows x kc starting at (r0, p0) into a p-major split micro-panel:
// per p, MR real parts then MR imaginary parts; rows past `rows` are zero.
void pack_rows(const View& a, int64_t r0, int64_t p0, int64_t rows, int64_t kc, float* dst) {
  const cfloat* base = a.data + r0 * a.rs + p0 * a.cs;
  for (int64_t p = 0; p < kc; ++p) {
    float* d = dst + p * 2 * MR;
    for (int64_t i = 0; i < MR; ++i) {
      const cfloat v = i < rows ? base[i * a.rs + p * a.cs] : cfloat{0.0f, 0.0f};
      d[i] = v.re;
      d[MR + i] = v.im;
    }
  }
}

// kc x NR starting at (p0, q0) into a p-major split micro-panel.
void pack_cols(const View& b, int64_t p0, int64_t q0, int64_t cols, int64_t kc, float* dst) {
  const cfloat* base = b.data + p0 * b.rs + q0 * b.cs;
  for (int64_t p = 0; p < kc; ++p) {
    float* d = dst + p * 2 * NR;
    const cfloat* src = base + p * b.rs;
    if (cols == NR && b.cs == 1) {
      for (int64_t j = 0; j < NR; ++j) {
        d[j] = src[j].re;
        d[NR + j] = src[j].im;
      }
      continue;
    }
    for (int64_t j = 0; j < NR; ++j) {
      const cfloat v = j < cols ? src[j * b.cs] : cfloat{0.0f, 0.0f};
      d[j] = v.re;
      d[NR + j] = v.im;
    }
  }
}

// Rows [r0, r0 + rows) x columns [q0, q0 + cols) of out = alpha * L R + beta * out
// (row-major, row pitch ldo, unit column stride); k >= 1. The first K slice
// applies beta (reading out only when beta != 0), later slices add onto it.
void gemm_unit(int64_t r0, int64_t rows, int64_t q0, int64_t cols, int64_t k, const View& l, const View& r, cfloat* out,
               int64_t ldo, cfloat alpha, cfloat beta, float* apack, float* bpack) {
  alignas(32) float re[MR * NR], im[MR * NR];
  const bool beta_zero = beta.re == 0.0f && beta.im == 0.0f;
  for (int64_t pc = 0; pc < k; pc += KC) {
    const int64_t kc = std::min(KC, k - pc);
    const cfloat slice_beta = pc == 0 ? beta : cfloat{1.0f, 0.0f};
    const bool read_c = pc > 0 || !beta_zero;
    for (int64_t ir = 0; ir < rows; ir += MR) pack_rows(l, r0 + ir, pc, std::min(MR, rows - ir), kc, apack + ir * 2 * kc);
    for (int64_t jr = 0; jr < cols; jr += NR) pack_cols(r, pc, q0 + jr, std::min(NR, cols - jr), kc, bpack + jr * 2 * kc);
    for (int64_t jr = 0; jr < cols; jr += NR)
      for (int64_t ir = 0; ir < rows; ir += MR) {
        micro(kc, apack + ir * 2 * kc, bpack + jr * 2 * kc, re, im);
        store_tile(re, im, out + (r0 + ir) * ldo + q0 + jr, ldo, std::min(MR, rows - ir), std::min(NR, cols - jr), alpha,
                   slice_beta, read_c);
      }
  }
}

// The uplo triangle := beta * C, never reading C when beta == 0.
void scale_triangle(kgb_tensor* c, cfloat beta, bool upper) {
  cfloat* p = static_cast<cfloat*>(c->data);
  const int64_t n = c->sizes[0];
  const bool zero = beta.re == 0.0f && beta.im == 0.0f;
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = upper ? 0 : j; i < (upper ? j + 1 : n); ++i) {
      cfloat* e = p + i * c->strides[0] + j * c->strides[1];
      const cfloat v = zero ? cfloat{0.0f, 0.0f} : *e;
      *e = zero ? v : cfloat{beta.re * v.re - beta.im * v.im, beta.re * v.im + beta.im * v.re};
    }
}

}  // namespace

extern "C" int kgb_blas_csyrk_ex(int uplo, int trans, kgb_complex alpha, const kgb_tensor* A, kgb_complex beta, kgb_tensor* C,
                                 kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_C64 || C->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || C->rank != 2 || (uplo != 0 && uplo != 1) || (trans != 0 && trans != 1)) return KGB_ERR_INVALID;
  const bool t = trans == 1, upper = uplo == 1;
  const int64_t n = C->sizes[0], k = t ? A->sizes[0] : A->sizes[1];
  if (C->sizes[1] != n || (t ? A->sizes[1] : A->sizes[0]) != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  const cfloat fa{static_cast<float>(alpha.re), static_cast<float>(alpha.im)};
  const cfloat fb{static_cast<float>(beta.re), static_cast<float>(beta.im)};
  if ((fa.re == 0.0f && fa.im == 0.0f) || k == 0) {  // A is not read
    scale_triangle(C, fb, upper);
    return KGB_OK;
  }
  // P(i, l) = op(A)(i, l) at a[i * si + l * sl]. The row-major product
  // C^T (row j, column i) = P (j, l) * P^T (l, i).
  const cfloat* a = static_cast<const cfloat*>(A->data);
  const int64_t si = t ? A->strides[1] : A->strides[0], sl = t ? A->strides[0] : A->strides[1];
  const View l{a, si, sl}, r{a, sl, si};
  cfloat* c = static_cast<cfloat*>(C->data);
  const int64_t cs0 = C->strides[0], cs1 = C->strides[1];
  const bool beta_zero = fb.re == 0.0f && fb.im == 0.0f;
  const int64_t row_blocks = (n + MC - 1) / MC, col_blocks = (n + NB - 1) / NB;
#pragma omp parallel
  {
    std::vector<float> apack(static_cast<size_t>(2 * MC * std::min(k, KC)));
    std::vector<float> bpack(static_cast<size_t>(2 * NB * std::min(k, KC)));
    std::vector<cfloat> tile(static_cast<size_t>(MC * NB));
#pragma omp for collapse(2) schedule(dynamic, 1)
    for (int64_t rb = 0; rb < row_blocks; ++rb)
      for (int64_t cb = 0; cb < col_blocks; ++cb) {
        const int64_t j0 = rb * MC, rows = std::min(MC, n - j0), i0 = cb * NB, cols = std::min(NB, n - i0);
        // Rows j, columns i of C^T; lower keeps i >= j, upper i <= j.
        const bool meets = upper ? i0 <= j0 + rows - 1 : i0 + cols - 1 >= j0;
        if (!meets) continue;
        const bool inside = upper ? i0 + cols - 1 <= j0 : i0 >= j0 + rows - 1;
        if (inside && cs0 == 1) {
          gemm_unit(j0, rows, i0, cols, k, l, r, c, cs1, fa, fb, apack.data(), bpack.data());
          continue;
        }
        // Diagonal (or non-unit-stride) unit: alpha * P P^T into the scratch tile, then the triangle.
        gemm_unit(0, rows, 0, cols, k, View{a + j0 * si, si, sl}, View{a + i0 * si, sl, si}, tile.data(), NB, fa,
                  cfloat{0.0f, 0.0f}, apack.data(), bpack.data());
        for (int64_t rr = 0; rr < rows; ++rr)
          for (int64_t q = 0; q < cols; ++q) {
            const int64_t j = j0 + rr, i = i0 + q;
            if (upper ? i > j : i < j) continue;
            cfloat* e = c + i * cs0 + j * cs1;
            cfloat v = tile[static_cast<size_t>(rr * NB + q)];
            if (!beta_zero) {
              const cfloat old = *e;
              v.re += fb.re * old.re - fb.im * old.im;
              v.im += fb.re * old.im + fb.im * old.re;
            }
            *e = v;
          }
      }
  }
  return KGB_OK;
}
