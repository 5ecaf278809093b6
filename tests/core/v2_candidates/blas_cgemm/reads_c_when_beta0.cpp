// Wrong on purpose: always adds beta * C, also when beta == 0, so the NaN
// elements C arrives with leak into the result where BLAS says C is not read.
#include "kgb_kernel.h"

namespace {

struct cf {
  float re, im;
};

cf mul(cf a, cf b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
cf op(const cf* x, int trans, int64_t r, int64_t q, int64_t ld) {
  // Element (r, q) of op(X) for a column-major X.
  if (trans == 0) return x[r + q * ld];
  const cf v = x[q + r * ld];
  return trans == 2 ? cf{v.re, -v.im} : v;
}

}  // namespace

extern "C" int kgb_blas_cgemm(int transa, int transb, kgb_complex alpha, const kgb_tensor* A, const kgb_tensor* B,
                              kgb_complex beta, kgb_tensor* C, kgb_stream stream) {
  (void)stream;
  const int64_t m = C->sizes[0], n = C->sizes[1], k = transa ? A->sizes[0] : A->sizes[1];
  const int64_t lda = A->strides[1], ldb = B->strides[1], ldc = C->strides[1];
  const cf* a = static_cast<const cf*>(A->data);
  const cf* b = static_cast<const cf*>(B->data);
  cf* c = static_cast<cf*>(C->data);
  const cf al{static_cast<float>(alpha.re), static_cast<float>(alpha.im)};
  const cf be{static_cast<float>(beta.re), static_cast<float>(beta.im)};
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      cf sum{0.0f, 0.0f};
      for (int64_t l = 0; l < k; ++l) {
        const cf p = mul(op(a, transa, i, l, lda), op(b, transb, l, j, ldb));
        sum.re += p.re;
        sum.im += p.im;
      }
      const cf r = mul(al, sum), old = mul(be, c[i + j * ldc]);
      c[i + j * ldc] = cf{r.re + old.re, r.im + old.im};
    }
  return KGB_OK;
}
