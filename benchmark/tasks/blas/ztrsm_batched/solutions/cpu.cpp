// blas/ztrsm_batched on the CPU: for every item b, B[b] := X with
// op(A[b]) X = alpha B[b] (LEFT) or X op(A[b]) = alpha B[b] (RIGHT), op C
// conjugating, column-major, complex double.
//
// Items go to OpenMP threads (dynamic: one item each at a time). Every item
// is reduced to one forward substitution L Y = alpha R with a lower-triangular
// L: for RIGHT the right-hand sides are the rows of B and the matrix is
// op(A)^T; an upper-triangular matrix is solved backwards by reversing its
// index order; op C conjugates while packing. L is packed row-major with the
// real and imaginary parts split (only the stored triangle is read;
// CUBLAS_DIAG_UNIT never touches the diagonal), with the complex reciprocals
// of its diagonal. The right-hand sides are solved in panels of 4, also split
// (one 4-wide double vector per part and row, GCC vector types: AVX under
// -march=native, SSE/NEON otherwise), two rows at a time: the products with
// the rows already solved accumulate in 4 vector registers (four real FMAs
// per complex product), then the 2 x 2 diagonal triangle finishes them.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kgb_kernel.h"

namespace {

typedef double v4 __attribute__((vector_size(32)));
constexpr int64_t W = 4;  // right-hand sides per panel (one v4 per part)

struct cdouble {
  double re, im;
};

inline v4 load(const double* p) {
  v4 v;
  memcpy(&v, p, sizeof v);
  return v;
}
inline void store(double* p, v4 v) { memcpy(p, &v, sizeof v); }

// acc -= l * x for complex l (scalar parts) and x (vector parts).
inline void sub_product(v4& acc_re, v4& acc_im, double lr, double li, v4 xr, v4 xi) {
  acc_re -= lr * xr - li * xi;
  acc_im -= lr * xi + li * xr;
}
inline void scale(v4& re, v4& im, double sr, double si) {
  const v4 r = sr * re - si * im, i = sr * im + si * re;
  re = r;
  im = i;
}

// Solves L Y = Y in place on a d x W panel stored as yr / yi (row-major).
void solve_panel(const double* lre, const double* lim, const double* dre, const double* dim, int64_t d, double* yr, double* yi) {
  int64_t i0 = 0;
  for (; i0 + 2 <= d; i0 += 2) {
    v4 a0r = load(yr + i0 * W), a0i = load(yi + i0 * W), a1r = load(yr + (i0 + 1) * W), a1i = load(yi + (i0 + 1) * W);
    const double* l0r = lre + i0 * d;
    const double* l0i = lim + i0 * d;
    const double* l1r = l0r + d;
    const double* l1i = l0i + d;
    for (int64_t l = 0; l < i0; ++l) {
      const v4 xr = load(yr + l * W), xi = load(yi + l * W);
      sub_product(a0r, a0i, l0r[l], l0i[l], xr, xi);
      sub_product(a1r, a1i, l1r[l], l1i[l], xr, xi);
    }
    scale(a0r, a0i, dre[i0], dim[i0]);
    sub_product(a1r, a1i, l1r[i0], l1i[i0], a0r, a0i);
    scale(a1r, a1i, dre[i0 + 1], dim[i0 + 1]);
    store(yr + i0 * W, a0r);
    store(yi + i0 * W, a0i);
    store(yr + (i0 + 1) * W, a1r);
    store(yi + (i0 + 1) * W, a1i);
  }
  for (int64_t i = i0; i < d; ++i) {
    v4 ar = load(yr + i * W), ai = load(yi + i * W);
    for (int64_t l = 0; l < i; ++l) sub_product(ar, ai, lre[i * d + l], lim[i * d + l], load(yr + l * W), load(yi + l * W));
    scale(ar, ai, dre[i], dim[i]);
    store(yr + i * W, ar);
    store(yi + i * W, ai);
  }
}

struct Problem {
  bool left, t_transposed, reversed, unit, conj;
  int64_t d, rhs;
  cdouble alpha;
};

struct Scratch {
  std::vector<double> lre, lim, dre, dim, yr, yi;
  explicit Scratch(int64_t d)
      : lre(static_cast<size_t>(d * d), 0.0), lim(static_cast<size_t>(d * d), 0.0), dre(static_cast<size_t>(d)),
        dim(static_cast<size_t>(d)), yr(static_cast<size_t>(d * W)), yi(static_cast<size_t>(d * W)) {}
};

void solve_item(const Problem& p, const kgb_tensor* A, kgb_tensor* B, Scratch& s) {
  const int64_t d = p.d;
  const cdouble* a = static_cast<const cdouble*>(A->data);
  const int64_t ti = p.t_transposed ? A->strides[1] : A->strides[0], tl = p.t_transposed ? A->strides[0] : A->strides[1];
  const double sgn = p.conj ? -1.0 : 1.0;
  for (int64_t i = 0; i < d; ++i) {
    const int64_t ii = p.reversed ? d - 1 - i : i;
    for (int64_t l = 0; l < i; ++l) {
      const cdouble v = a[ii * ti + (p.reversed ? d - 1 - l : l) * tl];
      s.lre[static_cast<size_t>(i * d + l)] = v.re;
      s.lim[static_cast<size_t>(i * d + l)] = sgn * v.im;
    }
    if (p.unit) {
      s.dre[static_cast<size_t>(i)] = 1.0;
      s.dim[static_cast<size_t>(i)] = 0.0;
    } else {  // 1 / conj?(diagonal)
      const cdouble v = a[ii * (ti + tl)];
      const double re = v.re, im = sgn * v.im, den = re * re + im * im;
      s.dre[static_cast<size_t>(i)] = re / den;
      s.dim[static_cast<size_t>(i)] = -im / den;
    }
  }
  cdouble* b = static_cast<cdouble*>(B->data);
  const int64_t sp = p.left ? B->strides[0] : B->strides[1], sq = p.left ? B->strides[1] : B->strides[0];
  for (int64_t q0 = 0; q0 < p.rhs; q0 += W) {
    const int64_t w = std::min(W, p.rhs - q0);
    for (int64_t r = 0; r < d; ++r) {
      const cdouble* src = b + (p.reversed ? d - 1 - r : r) * sp + q0 * sq;
      for (int64_t c = 0; c < W; ++c) {
        const cdouble v = c < w ? src[c * sq] : cdouble{0.0, 0.0};
        s.yr[static_cast<size_t>(r * W + c)] = p.alpha.re * v.re - p.alpha.im * v.im;
        s.yi[static_cast<size_t>(r * W + c)] = p.alpha.re * v.im + p.alpha.im * v.re;
      }
    }
    solve_panel(s.lre.data(), s.lim.data(), s.dre.data(), s.dim.data(), d, s.yr.data(), s.yi.data());
    for (int64_t r = 0; r < d; ++r) {
      cdouble* dst = b + (p.reversed ? d - 1 - r : r) * sp + q0 * sq;
      for (int64_t c = 0; c < w; ++c) dst[c * sq] = cdouble{s.yr[static_cast<size_t>(r * W + c)], s.yi[static_cast<size_t>(r * W + c)]};
    }
  }
}

}  // namespace

extern "C" int kgb_blas_ztrsm_batched(int side, int uplo, int trans, int diag, kgb_complex alpha, const kgb_tensor_list* Aarray,
                                      kgb_tensor_list* Barray, kgb_stream stream) {
  (void)stream;
  if ((side != 0 && side != 1) || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const int64_t batch = Barray->count;
  if (Aarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* a0 = Aarray->items[0];
  const kgb_tensor* b0 = Barray->items[0];
  if (a0->dtype != KGB_C128 || b0->dtype != KGB_C128 || a0->rank != 2 || b0->rank != 2) return KGB_ERR_UNSUPPORTED;
  Problem p;
  p.left = side == 0;
  const int64_t m = b0->sizes[0], n = b0->sizes[1];
  p.d = p.left ? m : n;
  p.rhs = p.left ? n : m;
  if (a0->sizes[0] != p.d || a0->sizes[1] != p.d) return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  p.alpha = cdouble{alpha.re, alpha.im};
  p.t_transposed = (trans != 0) != !p.left;  // T = op(A) (LEFT) or op(A)^T (RIGHT)
  p.reversed = (uplo == 0) == p.t_transposed;  // T upper triangular: solve it backwards
  p.unit = diag == 1;
  p.conj = trans == 2;
  if (alpha.re == 0.0 && alpha.im == 0.0) {  // every B[b] = 0, A not read
#pragma omp parallel for schedule(static)
    for (int64_t item = 0; item < batch; ++item) {
      kgb_tensor* bt = Barray->items[item];
      cdouble* b = static_cast<cdouble*>(bt->data);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) b[i * bt->strides[0] + j * bt->strides[1]] = cdouble{0.0, 0.0};
    }
    return KGB_OK;
  }
#pragma omp parallel
  {
    Scratch s(p.d);
#pragma omp for schedule(dynamic, 1)
    for (int64_t item = 0; item < batch; ++item) solve_item(p, Aarray->items[item], Barray->items[item], s);
  }
  return KGB_OK;
}
