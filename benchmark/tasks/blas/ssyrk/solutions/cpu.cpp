// blas/ssyrk on the CPU: the uplo triangle of C becomes
// alpha * op(A) op(A)^T + beta * C, column-major.
//
// Every C(i, j) is a dot product of rows i and j of op(A). op(A) is packed
// once into a row-major n x kp panel (kp = k rounded up to 8, zero padded),
// which turns both transposes into unit-stride rows. The triangle is cut
// into 4 x 4 register tiles; a tile keeps its 16 dot products in 8-wide
// vector accumulators (AVX with -march=native, SSE/NEON otherwise, via GCC
// vector types) and loads 8 rows per k step for 16 FMAs. Tiles crossing the
// diagonal compute all 16 and store only the triangle's elements; tiles
// outside the triangle are never visited. Column blocks of tiles are spread
// over OpenMP threads (dynamic: the triangle makes them uneven). beta == 0
// never reads C; alpha == 0 or k == 0 only scales the triangle.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

namespace {

typedef float v8 __attribute__((vector_size(32)));
constexpr int64_t R = 4;  // tile edge (rows and columns of C)

inline float hsum(v8 v) {
  float s = 0.0f;
  for (int l = 0; l < 8; ++l) s += v[l];
  return s;
}

inline bool in_triangle(bool upper, int64_t i, int64_t j) { return upper ? i <= j : i >= j; }

// The 4 x 4 tile of dot products of rows i0.. and j0.. of the packed panel.
void tile(const float* p, int64_t kp, int64_t i0, int64_t j0, float out[R][R]) {
  v8 acc[R][R];
  for (int64_t a = 0; a < R; ++a)
    for (int64_t b = 0; b < R; ++b) acc[a][b] = v8{};
  const float* ri[R] = {p + i0 * kp, p + (i0 + 1) * kp, p + (i0 + 2) * kp, p + (i0 + 3) * kp};
  const float* rj[R] = {p + j0 * kp, p + (j0 + 1) * kp, p + (j0 + 2) * kp, p + (j0 + 3) * kp};
  for (int64_t l = 0; l < kp; l += 8) {
    v8 x[R], y[R];
    for (int64_t a = 0; a < R; ++a) memcpy(&x[a], ri[a] + l, sizeof(v8));
    for (int64_t b = 0; b < R; ++b) memcpy(&y[b], rj[b] + l, sizeof(v8));
    for (int64_t a = 0; a < R; ++a)
      for (int64_t b = 0; b < R; ++b) acc[a][b] += x[a] * y[b];
  }
  for (int64_t a = 0; a < R; ++a)
    for (int64_t b = 0; b < R; ++b) out[a][b] = hsum(acc[a][b]);
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
  auto update = [&](int64_t i, int64_t j, float dot) {
    float* out = c + i * cs0 + j * cs1;
    *out = fb == 0.0f ? fa * dot : fa * dot + fb * *out;
  };

  if (fa == 0.0f || k == 0) {  // A is not read: scale the triangle
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = upper ? 0 : j; i < (upper ? j + 1 : n); ++i) update(i, j, 0.0f);
    return KGB_OK;
  }

  // Pack op(A) row-major, n_pad x kp (extra rows and columns zero).
  const int64_t kp = (k + 7) / 8 * 8, n_pad = (n + R - 1) / R * R;
  std::vector<float> panel(static_cast<size_t>(n_pad * kp), 0.0f);
  const float* a = static_cast<const float*>(A->data);
  const int64_t si = t ? A->strides[1] : A->strides[0], sl = t ? A->strides[0] : A->strides[1];  // opA(i, l)
  if (sl == 1) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) memcpy(panel.data() + i * kp, a + i * si, static_cast<size_t>(k) * sizeof(float));
  } else {
    // opA(i, l) contiguous along i: transpose in 32 x 32 blocks.
    const int64_t blocks_l = (k + 31) / 32;
#pragma omp parallel for schedule(static)
    for (int64_t bl = 0; bl < blocks_l; ++bl)
      for (int64_t i0 = 0; i0 < n; i0 += 32)
        for (int64_t l = bl * 32; l < std::min(k, bl * 32 + 32); ++l)
          for (int64_t i = i0; i < std::min(n, i0 + 32); ++i) panel[static_cast<size_t>(i * kp + l)] = a[i * si + l * sl];
  }

  const int64_t tiles = n_pad / R;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t tj = 0; tj < tiles; ++tj) {
    // Tiles of column block tj that meet the triangle: rows ti >= tj (lower) or ti <= tj (upper).
    const int64_t first = upper ? 0 : tj, last = upper ? tj : tiles - 1;
    for (int64_t ti = first; ti <= last; ++ti) {
      float out[R][R];
      tile(panel.data(), kp, ti * R, tj * R, out);
      for (int64_t b = 0; b < R; ++b) {
        const int64_t j = tj * R + b;
        if (j >= n) break;
        for (int64_t a2 = 0; a2 < R; ++a2) {
          const int64_t i = ti * R + a2;
          if (i >= n) break;
          if (in_triangle(upper, i, j)) update(i, j, out[a2][b]);
        }
      }
    }
  }
  return KGB_OK;
}
