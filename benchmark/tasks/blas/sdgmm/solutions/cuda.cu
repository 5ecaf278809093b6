// blas/sdgmm on CUDA (sm_90): C = A * diag(x) (RIGHT) or diag(x) * A (LEFT),
// column-major.
//
// Memory-bound: a grid-stride loop over C in column-major order, so
// consecutive threads touch consecutive rows of a column (coalesced). When
// every column is 16-byte aligned (ld and m multiples of 4) each thread moves
// a float4; x is read as a float4 too for LEFT with incx == 1, through the
// read-only cache otherwise (RIGHT: one value per column, broadcast across the
// warp). A general strided kernel covers any other layout. In place (C == A)
// each thread reads exactly the elements it then overwrites.
#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>

#include "kgb_kernel.h"

namespace {

__global__ void dgmm_vec4(int64_t m4, int64_t n, const float* a, int64_t lda, const float* __restrict__ x, int64_t incx,
                          int right, float* c, int64_t ldc) {
  const int64_t total = m4 * n;
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < total;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = w / m4, i = (w - j * m4) * 4;
    const float4 v = *reinterpret_cast<const float4*>(a + j * lda + i);
    float4 s;
    if (right) {
      const float xj = __ldg(x + j * incx);
      s = make_float4(xj, xj, xj, xj);
    } else if (incx == 1) {
      s = __ldg(reinterpret_cast<const float4*>(x + i));
    } else {
      s = make_float4(__ldg(x + i * incx), __ldg(x + (i + 1) * incx), __ldg(x + (i + 2) * incx), __ldg(x + (i + 3) * incx));
    }
    *reinterpret_cast<float4*>(c + j * ldc + i) = make_float4(v.x * s.x, v.y * s.y, v.z * s.z, v.w * s.w);
  }
}

__global__ void dgmm_strided(int64_t m, int64_t n, const float* a, int64_t as0, int64_t as1, const float* __restrict__ x,
                             int64_t incx, int right, float* c, int64_t cs0, int64_t cs1) {
  const int64_t total = m * n;
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < total;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = w / m, i = w - j * m;
    c[i * cs0 + j * cs1] = a[i * as0 + j * as1] * __ldg(x + (right ? j : i) * incx);
  }
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

int grid_for(int64_t work, int threads) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>((work + threads - 1) / threads, 132 * 16)));
}

}  // namespace

extern "C" int kgb_blas_sdgmm(int mode, const kgb_tensor* A, const kgb_tensor* x, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || C->rank != 2 || x->rank != 1 || (mode != 0 && mode != 1)) return KGB_ERR_INVALID;
  const int64_t m = C->sizes[0], n = C->sizes[1];
  const int right = mode == 1;
  if (A->sizes[0] != m || A->sizes[1] != n || x->sizes[0] != (right ? n : m)) return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const float* a = static_cast<const float*>(A->data);
  const float* xp = static_cast<const float*>(x->data);
  float* c = static_cast<float*>(C->data);
  const int64_t incx = x->strides[0];
  const int threads = 256;
  const bool vec = (A->strides[0] == 1 || m == 1) && (C->strides[0] == 1 || m == 1) && m % 4 == 0 &&
                   (n == 1 || (A->strides[1] % 4 == 0 && C->strides[1] % 4 == 0)) && aligned16(a) && aligned16(c) &&
                   (right || incx != 1 || aligned16(xp));
  if (vec) {
    dgmm_vec4<<<grid_for(m / 4 * n, threads), threads, 0, s>>>(m / 4, n, a, A->strides[1], xp, incx, right, c, C->strides[1]);
  } else {
    dgmm_strided<<<grid_for(m * n, threads), threads, 0, s>>>(m, n, a, A->strides[0], A->strides[1], xp, incx, right, c,
                                                              C->strides[0], C->strides[1]);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
