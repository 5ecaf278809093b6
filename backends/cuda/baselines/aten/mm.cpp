// aten/mm on CUDA: cuBLAS, as ATen's CUDA mm does (float accumulation for 16-bit types).
#include "../cublas_common.h"
#include "kgb_entries/aten/mm.h"

namespace {

using namespace kgb::cuda_blas;

// aten/mm: params self, mat2, out. ATen on CUDA runs mm through cuBLAS with
// float accumulation for 16-bit types.
int mm_cublas(const kgb_tensor* a, const kgb_tensor* b, kgb_tensor* c, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  GemmOperand opa{a->data, a->sizes[0], a->sizes[1], a->strides[0], a->strides[1]};
  GemmOperand opb{b->data, b->sizes[0], b->sizes[1], b->strides[0], b->strides[1]};
  const float one = 1.0f, zero = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  switch (c->dtype) {
    case KGB_F32: return gemm(h, CUDA_R_32F, CUBLAS_COMPUTE_32F, &one, &zero, opa, opb, c);
    case KGB_F64: return gemm(h, CUDA_R_64F, CUBLAS_COMPUTE_64F, &one_d, &zero_d, opa, opb, c);
    case KGB_F16: return gemm(h, CUDA_R_16F, CUBLAS_COMPUTE_32F, &one, &zero, opa, opb, c);
    case KGB_BF16: return gemm(h, CUDA_R_16BF, CUBLAS_COMPUTE_32F, &one, &zero, opa, opb, c);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

KGB_BASELINE(aten_mm, "cublas (as ATen's CUDA mm)", mm_cublas);
