// blas/dtrsm_batched on the CPU: for every item b, B[b] := X with
// op(A[b]) X = alpha B[b] (LEFT) or X op(A[b]) = alpha B[b] (RIGHT),
// column-major, in double.
//
// Items go to OpenMP threads (dynamic: one item each at a time). Every item
// is reduced to one forward substitution L Y = alpha R with a lower-triangular
// L: for RIGHT the right-hand sides are the rows of B and the matrix is
// op(A)^T; an upper-triangular matrix is solved backwards by reversing its
// index order. L is packed row-major into a per-thread buffer (only the
// stored triangle is read; CUBLAS_DIAG_UNIT never touches the diagonal), with
// the reciprocals of its diagonal. The right-hand sides are solved in panels
// of 8, gathered row-major (8 doubles = two 4-wide vectors per row, GCC vector
// types: AVX under -march=native, SSE/NEON otherwise), four rows at a time:
// the products with the rows already solved accumulate in 8 vector registers,
// then the 4 x 4 diagonal triangle finishes them. Every item is reached
// through its own data pointer (the items are scattered; A items may repeat).
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

namespace {

typedef double v4 __attribute__((vector_size(32)));
constexpr int64_t W = 8;   // right-hand sides per panel (two v4)
constexpr int64_t RB = 4;  // rows solved together

struct Row {
  v4 lo, hi;
};

inline Row load(const double* p) {
  Row r;
  memcpy(&r.lo, p, sizeof(v4));
  memcpy(&r.hi, p + 4, sizeof(v4));
  return r;
}
inline void store(double* p, const Row& r) {
  memcpy(p, &r.lo, sizeof(v4));
  memcpy(p + 4, &r.hi, sizeof(v4));
}

// Solves L Y = Y in place on a d x W row-major panel (Y holds alpha * R).
void solve_panel(const double* L, const double* inv_diag, int64_t d, double* y) {
  int64_t i0 = 0;
  for (; i0 + RB <= d; i0 += RB) {
    Row acc[RB];
    for (int64_t r = 0; r < RB; ++r) acc[r] = load(y + (i0 + r) * W);
    const double* l0 = L + i0 * d;
    const double* l1 = l0 + d;
    const double* l2 = l1 + d;
    const double* l3 = l2 + d;
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
    for (int64_t r = 0; r < RB; ++r) {  // the 4 x 4 diagonal block
      const double* lr = L + (i0 + r) * d;
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
    const double* li = L + i * d;
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

struct Problem {
  bool left, t_transposed, reversed, unit;
  int64_t d, rhs;
  double alpha;
};

void solve_item(const Problem& p, const kgb_tensor* A, kgb_tensor* B, std::vector<double>& L, std::vector<double>& inv_diag,
                std::vector<double>& y) {
  const int64_t d = p.d;
  const double* a = static_cast<const double*>(A->data);
  const int64_t ti = p.t_transposed ? A->strides[1] : A->strides[0], tl = p.t_transposed ? A->strides[0] : A->strides[1];
  for (int64_t i = 0; i < d; ++i) {
    const int64_t ii = p.reversed ? d - 1 - i : i;
    double* row = L.data() + i * d;
    for (int64_t l = 0; l < i; ++l) row[l] = a[ii * ti + (p.reversed ? d - 1 - l : l) * tl];
    inv_diag[static_cast<size_t>(i)] = p.unit ? 1.0 : 1.0 / a[ii * (ti + tl)];
  }
  double* b = static_cast<double*>(B->data);
  const int64_t sp = p.left ? B->strides[0] : B->strides[1], sq = p.left ? B->strides[1] : B->strides[0];
  for (int64_t q0 = 0; q0 < p.rhs; q0 += W) {
    const int64_t w = std::min(W, p.rhs - q0);
    for (int64_t r = 0; r < d; ++r) {
      const double* src = b + (p.reversed ? d - 1 - r : r) * sp + q0 * sq;
      double* dst = y.data() + r * W;
      for (int64_t c = 0; c < w; ++c) dst[c] = p.alpha * src[c * sq];
      for (int64_t c = w; c < W; ++c) dst[c] = 0.0;
    }
    solve_panel(L.data(), inv_diag.data(), d, y.data());
    for (int64_t r = 0; r < d; ++r) {
      double* dst = b + (p.reversed ? d - 1 - r : r) * sp + q0 * sq;
      const double* src = y.data() + r * W;
      for (int64_t c = 0; c < w; ++c) dst[c * sq] = src[c];
    }
  }
}

}  // namespace

extern "C" int kgb_blas_dtrsm_batched(int side, int uplo, int trans, int diag, double alpha, const kgb_tensor_list* Aarray,
                                      kgb_tensor_list* Barray, kgb_stream stream) {
  (void)stream;
  if ((side != 0 && side != 1) || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const int64_t batch = Barray->count;
  if (Aarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* a0 = Aarray->items[0];
  const kgb_tensor* b0 = Barray->items[0];
  if (a0->dtype != KGB_F64 || b0->dtype != KGB_F64 || a0->rank != 2 || b0->rank != 2) return KGB_ERR_UNSUPPORTED;
  Problem p;
  p.left = side == 0;
  const int64_t m = b0->sizes[0], n = b0->sizes[1];
  p.d = p.left ? m : n;
  p.rhs = p.left ? n : m;
  if (a0->sizes[0] != p.d || a0->sizes[1] != p.d) return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  p.alpha = alpha;
  p.t_transposed = (trans != 0) != !p.left;  // T = op(A) (LEFT) or op(A)^T (RIGHT)
  p.reversed = (uplo == 0) == p.t_transposed;  // T upper triangular: solve it backwards
  p.unit = diag == 1;
  if (alpha == 0.0) {  // every B[b] = 0, A not read
#pragma omp parallel for schedule(static)
    for (int64_t item = 0; item < batch; ++item) {
      kgb_tensor* bt = Barray->items[item];
      double* b = static_cast<double*>(bt->data);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) b[i * bt->strides[0] + j * bt->strides[1]] = 0.0;
    }
    return KGB_OK;
  }
#pragma omp parallel
  {
    std::vector<double> L(static_cast<size_t>(p.d * p.d), 0.0), inv_diag(static_cast<size_t>(p.d)), y(static_cast<size_t>(p.d * W));
#pragma omp for schedule(dynamic, 1)
    for (int64_t item = 0; item < batch; ++item) solve_item(p, Aarray->items[item], Barray->items[item], L, inv_diag, y);
  }
  return KGB_OK;
}
