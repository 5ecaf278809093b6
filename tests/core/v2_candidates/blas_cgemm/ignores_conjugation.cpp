// Wrong on purpose: treats CUBLAS_OP_C like CUBLAS_OP_T (transposes without
// conjugating), so every case with a conjugated operand is wrong.
#include "kgb_kernel.h"

namespace {

struct cf {
  float re, im;
};

cf mul(cf a, cf b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

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
  const bool alpha0 = al.re == 0.0f && al.im == 0.0f, beta0 = be.re == 0.0f && be.im == 0.0f;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      cf sum{0.0f, 0.0f};
      for (int64_t l = 0; l < k && !alpha0; ++l) {
        const cf p = mul(transa ? a[l + i * lda] : a[i + l * lda], transb ? b[j + l * ldb] : b[l + j * ldb]);
        sum.re += p.re;
        sum.im += p.im;
      }
      cf r = mul(al, sum);
      if (!beta0) {
        const cf old = mul(be, c[i + j * ldc]);
        r.re += old.re;
        r.im += old.im;
      }
      c[i + j * ldc] = r;
    }
  return KGB_OK;
}
