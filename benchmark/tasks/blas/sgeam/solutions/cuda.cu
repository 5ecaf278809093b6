// blas/sgeam on CUDA (sm_90): C = alpha * op(A) + beta * op(B), column-major.
//
// Memory-bound, so the whole job is moving bytes at full bandwidth:
// - no transposes: a grid-stride loop over C's columns with float4 loads and
//   stores where every ld and pointer allows it (scalar otherwise);
// - a transposed operand: 32 x 32 tiles staged through shared memory (padded
//   to 33 columns against bank conflicts), so global reads of the stored
//   matrix and writes of C are both coalesced.
// A scale of 0 never reads its operand (BLAS). In place (C == A, transa == N)
// each thread reads exactly the elements it then overwrites.
#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>

#include "kgb_kernel.h"

namespace {

constexpr int TILE = 32, ROWS = 8;

struct Op {
  const float* p;
  int64_t s0, s1;  // stored element (r, c) at p[r * s0 + c * s1]
  float scale;
};

// op(X)(i, j) read directly from the stored matrix.
__device__ __forceinline__ float direct(const Op& x, bool transposed, int64_t i, int64_t j) {
  return transposed ? x.p[j * x.s0 + i * x.s1] : x.p[i * x.s0 + j * x.s1];
}

template <bool TA, bool TB>
__global__ void __launch_bounds__(TILE * ROWS) geam_tiled(int64_t m, int64_t n, Op a, Op b, float* __restrict__ c, int64_t cs0,
                                                          int64_t cs1) {
  __shared__ float ta[TILE][TILE + 1];
  __shared__ float tb[TILE][TILE + 1];
  const int64_t i0 = static_cast<int64_t>(blockIdx.x) * TILE, j0 = static_cast<int64_t>(blockIdx.y) * TILE;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool use_a = a.scale != 0.0f, use_b = b.scale != 0.0f;
  // Transposed operands: thread (tx, ty) reads stored row j0 + tx (contiguous
  // in tx), column i0 + ty + r, i.e. op(X)(i0 + ty + r, j0 + tx).
  if (TA && use_a)
    for (int r = ty; r < TILE; r += ROWS) {
      const int64_t i = i0 + r, j = j0 + tx;
      ta[r][tx] = (i < m && j < n) ? a.p[j * a.s0 + i * a.s1] : 0.0f;
    }
  if (TB && use_b)
    for (int r = ty; r < TILE; r += ROWS) {
      const int64_t i = i0 + r, j = j0 + tx;
      tb[r][tx] = (i < m && j < n) ? b.p[j * b.s0 + i * b.s1] : 0.0f;
    }
  if ((TA && use_a) || (TB && use_b)) __syncthreads();
  const int64_t i = i0 + tx;
  if (i >= m) return;
  for (int r = ty; r < TILE; r += ROWS) {
    const int64_t j = j0 + r;
    if (j >= n) break;
    float v = 0.0f;
    if (use_a) v = a.scale * (TA ? ta[tx][r] : direct(a, false, i, j));
    if (use_b) v += b.scale * (TB ? tb[tx][r] : direct(b, false, i, j));
    c[i * cs0 + j * cs1] = v;
  }
}

// No transposes, every column 16-byte aligned: four rows per thread.
__global__ void geam_nn_vec4(int64_t m4, int64_t n, const float* a, int64_t lda, float sa, const float* b, int64_t ldb,
                             float sb, float* c, int64_t ldc) {
  const int64_t total = m4 * n;
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < total;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = w / m4, i = (w - j * m4) * 4;
    float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (sa != 0.0f) {
      const float4 x = *reinterpret_cast<const float4*>(a + j * lda + i);
      r = make_float4(sa * x.x, sa * x.y, sa * x.z, sa * x.w);
    }
    if (sb != 0.0f) {
      const float4 y = *reinterpret_cast<const float4*>(b + j * ldb + i);
      r.x = fmaf(sb, y.x, r.x);
      r.y = fmaf(sb, y.y, r.y);
      r.z = fmaf(sb, y.z, r.z);
      r.w = fmaf(sb, y.w, r.w);
    }
    *reinterpret_cast<float4*>(c + j * ldc + i) = r;
  }
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

}  // namespace

extern "C" int kgb_blas_sgeam(int transa, int transb, double alpha, const kgb_tensor* A, double beta, const kgb_tensor* B,
                              kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  const int64_t m = C->sizes[0], n = C->sizes[1];
  if ((ta ? A->sizes[1] : A->sizes[0]) != m || (ta ? A->sizes[0] : A->sizes[1]) != n ||
      (tb ? B->sizes[1] : B->sizes[0]) != m || (tb ? B->sizes[0] : B->sizes[1]) != n)
    return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const float fa = static_cast<float>(alpha), fb = static_cast<float>(beta);
  const Op a{static_cast<const float*>(A->data), A->strides[0], A->strides[1], fa};
  const Op b{static_cast<const float*>(B->data), B->strides[0], B->strides[1], fb};
  float* c = static_cast<float*>(C->data);

  const bool unit_rows = A->strides[0] == 1 && B->strides[0] == 1 && C->strides[0] == 1;
  if (!ta && !tb && unit_rows && m % 4 == 0 && A->strides[1] % 4 == 0 && B->strides[1] % 4 == 0 && C->strides[1] % 4 == 0 &&
      aligned16(A->data) && aligned16(B->data) && aligned16(c)) {
    const int64_t total = m / 4 * n;
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<int64_t>((total + threads - 1) / threads, 132 * 16));
    geam_nn_vec4<<<blocks, threads, 0, s>>>(m / 4, n, a.p, A->strides[1], fa, b.p, B->strides[1], fb, c, C->strides[1]);
    return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
  }
  const dim3 block(TILE, ROWS);
  const dim3 grid(static_cast<unsigned>((m + TILE - 1) / TILE), static_cast<unsigned>((n + TILE - 1) / TILE));
  if (grid.y > 65535u) return KGB_ERR_UNSUPPORTED;
  if (ta && tb)
    geam_tiled<true, true><<<grid, block, 0, s>>>(m, n, a, b, c, C->strides[0], C->strides[1]);
  else if (ta)
    geam_tiled<true, false><<<grid, block, 0, s>>>(m, n, a, b, c, C->strides[0], C->strides[1]);
  else if (tb)
    geam_tiled<false, true><<<grid, block, 0, s>>>(m, n, a, b, c, C->strides[0], C->strides[1]);
  else
    geam_tiled<false, false><<<grid, block, 0, s>>>(m, n, a, b, c, C->strides[0], C->strides[1]);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
