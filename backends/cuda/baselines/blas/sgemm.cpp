// blas/sgemm on CUDA: cuBLAS (cublasGemmEx, f32 compute, as cublasSgemm).
#include "../cublas_common.h"
#include "kgb_entries/blas/sgemm.h"

namespace {

using namespace kgb::cuda_blas;

int sgemm_cublas(int64_t transa, int64_t transb, double alpha_d, const kgb_tensor* a, const kgb_tensor* b, double beta_d,
                 kgb_tensor* c, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);
  if (a->dtype != KGB_F32 || b->dtype != KGB_F32 || c->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  GemmOperand opa = ta ? GemmOperand{a->data, a->sizes[1], a->sizes[0], a->strides[1], a->strides[0]}
                       : GemmOperand{a->data, a->sizes[0], a->sizes[1], a->strides[0], a->strides[1]};
  GemmOperand opb = tb ? GemmOperand{b->data, b->sizes[1], b->sizes[0], b->strides[1], b->strides[0]}
                       : GemmOperand{b->data, b->sizes[0], b->sizes[1], b->strides[0], b->strides[1]};
  // Plain sgemm semantics (no tensor-core TF32): CUBLAS_COMPUTE_32F_PEDANTIC
  // would also forbid reduced-precision reductions; 32F is what cublasSgemm does.
  return gemm(h, CUDA_R_32F, CUBLAS_COMPUTE_32F, &alpha, &beta, opa, opb, c);
}

}  // namespace

KGB_BASELINE(blas_sgemm, "cublas", sgemm_cublas);
