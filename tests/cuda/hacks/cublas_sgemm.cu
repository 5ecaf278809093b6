// Planted hack (blas/sgemm): hands the whole call to cuBLAS. Linked here with
// -lcublas on purpose (the real link line has no cuBLAS, and the lint bans
// the call): the launch counter must see library kernels only.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "kgb_kernel.h"

extern "C" int kgb_blas_sgemm(int64_t transa, int64_t transb, double alpha, const kgb_tensor* A, const kgb_tensor* B,
                              double beta, kgb_tensor* C, kgb_stream stream) {
  static cublasHandle_t handle = nullptr;
  if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return KGB_ERR_INVALID;
  cublasSetStream(handle, (cudaStream_t)stream);
  const int m = (int)C->sizes[0], n = (int)C->sizes[1], k = (int)(transa ? A->sizes[0] : A->sizes[1]);
  if (m == 0 || n == 0) return KGB_OK;
  const float a = (float)alpha, b = (float)beta;
  const int lda = (int)(A->sizes[1] <= 1 ? (A->sizes[0] > 1 ? A->sizes[0] : 1) : A->strides[1]);
  const int ldb = (int)(B->sizes[1] <= 1 ? (B->sizes[0] > 1 ? B->sizes[0] : 1) : B->strides[1]);
  const int ldc = (int)(C->sizes[1] <= 1 ? (m > 1 ? m : 1) : C->strides[1]);
  return cublasSgemm(handle, transa ? CUBLAS_OP_T : CUBLAS_OP_N, transb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &a,
                     (const float*)A->data, lda, (const float*)B->data, ldb, &b, (float*)C->data, ldc) == CUBLAS_STATUS_SUCCESS
             ? KGB_OK
             : KGB_ERR_INVALID;
}
