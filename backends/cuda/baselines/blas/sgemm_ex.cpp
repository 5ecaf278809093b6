// blas/sgemm_ex on CUDA: cublasSgemmEx itself, alpha and beta as float in host
// pointer mode, the enum values as cublasOperation_t (they keep cuBLAS's
// numbers), each kgb dtype as its cudaDataType (Atype = Btype, Ctype) and the
// column-major views' strides[1] as the leading dimensions.
#include "../cublas_common.h"
#include "kgb_entries/blas/sgemm_ex.h"

namespace {

using namespace kgb::cuda_blas;

// The cudaDataType of a kgb dtype SgemmEx takes; false for any other.
bool cuda_type(int32_t dtype, cudaDataType* out) {
  switch (dtype) {
    case KGB_F32: *out = CUDA_R_32F; return true;
    case KGB_F16: *out = CUDA_R_16F; return true;
    case KGB_BF16: *out = CUDA_R_16BF; return true;
    case KGB_I8: *out = CUDA_R_8I; return true;
    default: return false;
  }
}

int sgemm_ex_cublas(int transa, int transb, double alpha_d, const kgb_tensor* A, const kgb_tensor* B, double beta_d,
                    kgb_tensor* C, kgb_stream stream) {
  cublasHandle_t h = handle_on(stream);
  if (!h) return KGB_ERR_INVALID;
  cudaDataType ab_type, c_type;
  if (A->dtype != B->dtype || !cuda_type(A->dtype, &ab_type) || !cuda_type(C->dtype, &c_type) || c_type == CUDA_R_8I)
    return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  const int64_t m = C->sizes[0], n = C->sizes[1], k = transa ? A->sizes[0] : A->sizes[1];
  if (m == 0 || n == 0) return KGB_OK;
  const int64_t lda = column_major_ld(A), ldb = column_major_ld(B), ldc = column_major_ld(C);
  if (lda == 0 || ldb == 0 || ldc == 0) return KGB_ERR_UNSUPPORTED;  // not a BLAS layout
  const float alpha = static_cast<float>(alpha_d), beta = static_cast<float>(beta_d);
  const cublasStatus_t st = cublasSgemmEx(h, static_cast<cublasOperation_t>(transa), static_cast<cublasOperation_t>(transb),
                                          static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &alpha, A->data,
                                          ab_type, static_cast<int>(lda), B->data, ab_type, static_cast<int>(ldb), &beta,
                                          C->data, c_type, static_cast<int>(ldc));
  return st == CUBLAS_STATUS_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

KGB_BASELINE(blas_sgemm_ex, "cublas", sgemm_ex_cublas);
