// blas/strsm on the CPU: B := X with op(A) X = alpha B (LEFT) or
// X op(A) = alpha B (RIGHT), column-major.
//
// Every case is reduced to one forward substitution L Y = alpha R with a
// lower-triangular L: for RIGHT the right-hand sides are the rows of B and the
// matrix is op(A)^T; an upper-triangular matrix is solved backwards by
// reversing its index order. L is packed once, row-major (only the triangle
// that is stored is read; CUBLAS_DIAG_UNIT never touches the diagonal), with
// the reciprocals of its diagonal. The right-hand sides are independent: they
// go to OpenMP threads in panels of 16, gathered row-major (16 floats = two
// 8-wide vectors per row, GCC vector types: AVX under -march=native, SSE/NEON
// otherwise). A panel is solved four rows at a time: the products with all
// rows already solved accumulate in 8 vector registers (4 broadcasts of L
// and 2 loads per step), then the 4 x 4 diagonal triangle finishes them.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

namespace {

typedef float v8 __attribute__((vector_size(32)));
constexpr int64_t W = 16;  // right-hand sides per panel (two v8)
constexpr int64_t RB = 4;  // rows solved together

struct Row {
  v8 lo, hi;
};

inline Row load(const float* p) {
  Row r;
  memcpy(&r.lo, p, sizeof(v8));
  memcpy(&r.hi, p + 8, sizeof(v8));
  return r;
}
inline void store(float* p, const Row& r) {
  memcpy(p, &r.lo, sizeof(v8));
  memcpy(p + 8, &r.hi, sizeof(v8));
}

// Solves L Y = Y in place on a d x W row-major panel (Y holds alpha * R).
void solve_panel(const float* L, const float* inv_diag, int64_t d, float* y) {
  int64_t i0 = 0;
  for (; i0 + RB <= d; i0 += RB) {
    Row acc[RB];
    for (int64_t r = 0; r < RB; ++r) acc[r] = load(y + (i0 + r) * W);
    const float* l0 = L + i0 * d;
    const float* l1 = l0 + d;
    const float* l2 = l1 + d;
    const float* l3 = l2 + d;
    for (int64_t l = 0; l < i0; ++l) {
      const Row x = load(y + l * W);
      acc[0].lo -= l0[l] * x.lo;
      acc[0].hi -= l0[l] * x.hi;
      acc[1].lo -= l1[l] * x.lo;
      acc[1].hi -= l1[l] * x.hi;
      acc[2].lo -= l2[l] * x.lo;
      acc[2].hi -= l2[l] * x.hi;
      acc[3].lo -= l3[l] * x.lo;
      acc[3].hi -= l3[l] * x.hi;
    }
    // The 4 x 4 diagonal block.
    for (int64_t r = 0; r < RB; ++r) {
      const float* lr = L + (i0 + r) * d;
      for (int64_t s = 0; s < r; ++s) {
        acc[r].lo -= lr[i0 + s] * acc[s].lo;
        acc[r].hi -= lr[i0 + s] * acc[s].hi;
      }
      acc[r].lo *= inv_diag[i0 + r];
      acc[r].hi *= inv_diag[i0 + r];
      store(y + (i0 + r) * W, acc[r]);
    }
  }
  for (int64_t i = i0; i < d; ++i) {  // remaining rows one by one
    Row acc = load(y + i * W);
    const float* li = L + i * d;
    for (int64_t l = 0; l < i; ++l) {
      const Row x = load(y + l * W);
      acc.lo -= li[l] * x.lo;
      acc.hi -= li[l] * x.hi;
    }
    acc.lo *= inv_diag[i];
    acc.hi *= inv_diag[i];
    store(y + i * W, acc);
  }
}

}  // namespace

extern "C" int kgb_blas_strsm(int side, int uplo, int trans, int diag, double alpha, const kgb_tensor* A, kgb_tensor* B,
                              kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2) return KGB_ERR_INVALID;
  if ((side != 0 && side != 1) || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const bool left = side == 0;
  const int64_t m = B->sizes[0], n = B->sizes[1], d = left ? m : n, rhs = left ? n : m;
  if (A->sizes[0] != d || A->sizes[1] != d) return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  float* b = static_cast<float*>(B->data);
  const int64_t bs0 = B->strides[0], bs1 = B->strides[1];
  const float fa = static_cast<float>(alpha);
  if (fa == 0.0f) {  // B = 0, A not read
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) b[i * bs0 + j * bs1] = 0.0f;
    return KGB_OK;
  }

  // T = op(A) (LEFT) or op(A)^T (RIGHT); T(i, l) = A(l, i) when t_transposed.
  const bool t_transposed = (trans != 0) != !left;
  const bool reversed = (uplo == 0) == t_transposed;  // T upper: solve it backwards
  const float* a = static_cast<const float*>(A->data);
  const int64_t ti = t_transposed ? A->strides[1] : A->strides[0], tl = t_transposed ? A->strides[0] : A->strides[1];
  std::vector<float> L(static_cast<size_t>(d * d), 0.0f), inv_diag(static_cast<size_t>(d));
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t i = 0; i < d; ++i) {
    const int64_t ii = reversed ? d - 1 - i : i;
    float* row = L.data() + i * d;
    for (int64_t l = 0; l < i; ++l) {
      const int64_t ll = reversed ? d - 1 - l : l;
      row[l] = a[ii * ti + ll * tl];
    }
    inv_diag[static_cast<size_t>(i)] = diag ? 1.0f : 1.0f / a[ii * (ti + tl)];
  }

  // Element p of right-hand side q (in L's order) is B(p', q) for LEFT and B(q, p') for RIGHT.
  const int64_t sp = left ? bs0 : bs1, sq = left ? bs1 : bs0;
  const int64_t panels = (rhs + W - 1) / W;
#pragma omp parallel
  {
    std::vector<float> y(static_cast<size_t>(d * W));
#pragma omp for schedule(dynamic, 1)
    for (int64_t pnl = 0; pnl < panels; ++pnl) {
      const int64_t q0 = pnl * W, w = std::min(W, rhs - q0);
      for (int64_t p = 0; p < d; ++p) {
        const float* src = b + (reversed ? d - 1 - p : p) * sp + q0 * sq;
        float* dst = y.data() + p * W;
        for (int64_t c = 0; c < w; ++c) dst[c] = fa * src[c * sq];
        for (int64_t c = w; c < W; ++c) dst[c] = 0.0f;
      }
      solve_panel(L.data(), inv_diag.data(), d, y.data());
      for (int64_t p = 0; p < d; ++p) {
        float* dst = b + (reversed ? d - 1 - p : p) * sp + q0 * sq;
        const float* src = y.data() + p * W;
        for (int64_t c = 0; c < w; ++c) dst[c * sq] = src[c];
      }
    }
  }
  return KGB_OK;
}
