// Wrong on purpose: takes only the real parts of the complex alpha and beta
// (as if they were the double scalars of sgemm), so every case whose alpha or
// beta has an imaginary part is wrong; op N/T/C and the BLAS rules are right.
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
  const float al = static_cast<float>(alpha.re), be = static_cast<float>(beta.re);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      cf sum{0.0f, 0.0f};
      for (int64_t l = 0; l < k && al != 0.0f; ++l) {
        const cf p = mul(op(a, transa, i, l, lda), op(b, transb, l, j, ldb));
        sum.re += p.re;
        sum.im += p.im;
      }
      cf r{al * sum.re, al * sum.im};
      if (be != 0.0f) {
        r.re += be * c[i + j * ldc].re;
        r.im += be * c[i + j * ldc].im;
      }
      c[i + j * ldc] = r;
    }
  return KGB_OK;
}
