// blas/ssyrk on the CPU: the uplo triangle of C becomes
// alpha * op(A) op(A)^T + beta * C, column-major.
//
// C(i, j) is the dot product of rows i and j of P = op(A) (n x k). Column-major
// C is the row-major matrix C^T (row j, column i, unit stride along i), so the
// update is a GEMM C^T = P P^T restricted to one triangle, run the way a BLAS
// GEMM runs: KC-deep slices of P are packed twice, into 6-row micro-panels
// (the j side, p-major) and 16-row micro-panels (the i side), and a 6 x 16
// register-blocked micro-kernel (12 eight-wide accumulators, GCC vector types:
// AVX/FMA under -march=native, SSE/NEON otherwise) sweeps them. Only the
// micro-tiles that meet the triangle are computed; tiles crossing the
// diagonal store just their triangle elements. Row panels go to OpenMP
// threads (dynamic: the triangle makes them uneven). The first K slice
// applies beta (never reading C when beta == 0), later slices accumulate;
// alpha == 0 or k == 0 only scale the triangle.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

namespace {

typedef float v8 __attribute__((vector_size(32)));
constexpr int64_t MR = 6, NR = 16, KC = 256;

// acc[r][c] = sum over p of ap[p][r] * bp[p][c] for one micro-tile.
inline void micro(int64_t kc, const float* ap, const float* bp, float* acc) {
  v8 c[MR][2];
  for (int64_t r = 0; r < MR; ++r) c[r][0] = c[r][1] = v8{};
  for (int64_t p = 0; p < kc; ++p) {
    v8 b0, b1;
    memcpy(&b0, bp, sizeof b0);
    memcpy(&b1, bp + 8, sizeof b1);
    for (int64_t r = 0; r < MR; ++r) {
      const float a = ap[r];
      c[r][0] += a * b0;
      c[r][1] += a * b1;
    }
    ap += MR;
    bp += NR;
  }
  for (int64_t r = 0; r < MR; ++r) {
    memcpy(acc + r * NR, &c[r][0], sizeof(v8));
    memcpy(acc + r * NR + 8, &c[r][1], sizeof(v8));
  }
}

// Rows r0 .. r0 + width - 1 of P (fewer than width: zero rows) for columns
// l0 .. l0 + kc - 1, p-major: dst[p * width + t] = P(r0 + t, l0 + p).
void pack(const float* a, int64_t si, int64_t sl, int64_t n, int64_t r0, int64_t width, int64_t l0, int64_t kc, float* dst) {
  const int64_t rows = std::min(width, n - r0);
  for (int64_t p = 0; p < kc; ++p) {
    const float* col = a + (l0 + p) * sl + r0 * si;
    float* d = dst + p * width;
    for (int64_t t = 0; t < rows; ++t) d[t] = col[t * si];
    for (int64_t t = rows; t < width; ++t) d[t] = 0.0f;
  }
}

}  // namespace

extern "C" int kgb_blas_ssyrk(int uplo, int trans, double alpha, const kgb_tensor* A, double beta, kgb_tensor* C,
                              kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || C->rank != 2 || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2) return KGB_ERR_INVALID;
  const bool t = trans != 0, upper = uplo == 1;
  const int64_t n = C->sizes[0], k = t ? A->sizes[0] : A->sizes[1];
  if (C->sizes[1] != n || (t ? A->sizes[1] : A->sizes[0]) != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  const float fa = static_cast<float>(alpha), fb = static_cast<float>(beta);
  float* c = static_cast<float*>(C->data);
  const int64_t cs0 = C->strides[0], cs1 = C->strides[1];
  auto in_triangle = [upper](int64_t i, int64_t j) { return upper ? i <= j : i >= j; };

  if (fa == 0.0f || k == 0) {  // A is not read: scale the triangle
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = upper ? 0 : j; i < (upper ? j + 1 : n); ++i) {
        float* out = c + i * cs0 + j * cs1;
        *out = fb == 0.0f ? 0.0f : fb * *out;
      }
    return KGB_OK;
  }

  const float* a = static_cast<const float*>(A->data);
  const int64_t si = t ? A->strides[1] : A->strides[0], sl = t ? A->strides[0] : A->strides[1];  // P(i, l)
  const int64_t j_panels = (n + MR - 1) / MR, i_panels = (n + NR - 1) / NR;
  const int64_t kc_max = std::min(k, KC);
  std::vector<float> apack(static_cast<size_t>(j_panels * MR * kc_max)), bpack(static_cast<size_t>(i_panels * NR * kc_max));

  for (int64_t pc = 0; pc < k; pc += KC) {
    const int64_t kc = std::min(KC, k - pc);
    const float slice_beta = pc == 0 ? fb : 1.0f;  // later slices accumulate onto the first
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
      for (int64_t jp = 0; jp < j_panels; ++jp) pack(a, si, sl, n, jp * MR, MR, pc, kc, apack.data() + jp * MR * kc);
#pragma omp for schedule(static)
      for (int64_t ip = 0; ip < i_panels; ++ip) pack(a, si, sl, n, ip * NR, NR, pc, kc, bpack.data() + ip * NR * kc);
      // The implicit barrier above: both packs are complete.
      alignas(32) float acc[MR * NR];
#pragma omp for schedule(dynamic, 1)
      for (int64_t jp = 0; jp < j_panels; ++jp) {
        const int64_t j0 = jp * MR, mr = std::min(MR, n - j0);
        // i panels meeting the triangle: lower needs some i >= j, upper some i <= j.
        const int64_t ip_first = upper ? 0 : j0 / NR, ip_last = upper ? (j0 + mr - 1) / NR : i_panels - 1;
        for (int64_t ip = ip_first; ip <= ip_last; ++ip) {
          const int64_t i0 = ip * NR, nr = std::min(NR, n - i0);
          micro(kc, apack.data() + jp * MR * kc, bpack.data() + ip * NR * kc, acc);
          const bool inside = upper ? i0 + nr - 1 <= j0 : i0 >= j0 + mr - 1;
          for (int64_t r = 0; r < mr; ++r) {
            const int64_t j = j0 + r;
            float* col = c + j * cs1 + i0 * cs0;
            const float* ar = acc + r * NR;
            if (inside && cs0 == 1) {
              if (slice_beta == 0.0f) {
#pragma omp simd
                for (int64_t q = 0; q < nr; ++q) col[q] = fa * ar[q];
              } else {
#pragma omp simd
                for (int64_t q = 0; q < nr; ++q) col[q] = fa * ar[q] + slice_beta * col[q];
              }
              continue;
            }
            for (int64_t q = 0; q < nr; ++q) {
              if (!in_triangle(i0 + q, j)) continue;
              float* out = col + q * cs0;
              *out = slice_beta == 0.0f ? fa * ar[q] : fa * ar[q] + slice_beta * *out;
            }
          }
        }
      }
    }
  }
  return KGB_OK;
}
