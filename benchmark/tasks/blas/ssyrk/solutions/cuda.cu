// blas/ssyrk on CUDA (sm_90): the uplo triangle of C becomes
// alpha * op(A) op(A)^T + beta * C, column-major, computed in float.
//
// A shared-memory tiled product that only visits the triangle: the grid has
// one block per 64 x 64 tile of C on or inside the triangle (nb (nb + 1) / 2
// blocks, the tile found from the block index), so no block idles on the
// other half. Each 16 x 16-thread block stages 16-deep slices of the two
// row panels of op(A) it needs (rows i0.. and j0..) in shared memory, loaded
// along whichever of A's strides is 1 (coalesced for both transposes), and
// each thread keeps a 4 x 4 register tile. Diagonal tiles store only their
// triangle. beta == 0 never reads C; alpha == 0 or k == 0 run a separate
// kernel that only scales the triangle (A is not read).
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int BM = 64, BK = 16, TM = 4, THREADS = (BM / TM) * (BM / TM);

struct SyrkArgs {
  int64_t n, k;
  const float* a;  // opA(i, l) at a[i * si + l * sl]
  int64_t si, sl;
  float* c;  // C(i, j) at c[i * cs0 + j * cs1]
  int64_t cs0, cs1;
  float alpha, beta;
  bool upper, l_fast;  // l_fast: sl == 1 (else si == 1 or any)
};

// Tile (row block, column block) of triangle tile t, counting lower tiles row by row.
__device__ __forceinline__ void tile_of(int64_t t, bool upper, int64_t& bi, int64_t& bj) {
  int64_t r = static_cast<int64_t>((sqrt(8.0 * static_cast<double>(t) + 1.0) - 1.0) * 0.5);
  while (r * (r + 1) / 2 > t) --r;
  while ((r + 1) * (r + 2) / 2 <= t) ++r;
  const int64_t c = t - r * (r + 1) / 2;  // c <= r
  bi = upper ? c : r;
  bj = upper ? r : c;
}

__global__ void __launch_bounds__(THREADS) syrk_tiled(SyrkArgs p) {
  __shared__ float As[BK][BM + 4];  // As[l][ii] = opA(i0 + ii, l0 + l)
  __shared__ float Bs[BK][BM + 4];  // Bs[l][jj] = opA(j0 + jj, l0 + l)
  int64_t bi, bj;
  tile_of(blockIdx.x, p.upper, bi, bj);
  const int64_t i0 = bi * BM, j0 = bj * BM;
  const int tid = threadIdx.x, tx = tid % (BM / TM), ty = tid / (BM / TM);
  float acc[TM][TM];
#pragma unroll
  for (int a = 0; a < TM; ++a)
#pragma unroll
    for (int b = 0; b < TM; ++b) acc[a][b] = 0.0f;

  for (int64_t l0 = 0; l0 < p.k; l0 += BK) {
#pragma unroll
    for (int q = 0; q < BM * BK / THREADS; ++q) {
      const int e = tid + q * THREADS;
      const int kk = p.l_fast ? e % BK : e / BM, mm = p.l_fast ? e / BK : e % BM;
      const int64_t l = l0 + kk, ri = i0 + mm, rj = j0 + mm;
      As[kk][mm] = (l < p.k && ri < p.n) ? p.a[ri * p.si + l * p.sl] : 0.0f;
      Bs[kk][mm] = (l < p.k && rj < p.n) ? p.a[rj * p.si + l * p.sl] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float x[TM], y[TM];
#pragma unroll
      for (int a = 0; a < TM; ++a) x[a] = As[kk][ty * TM + a];
#pragma unroll
      for (int b = 0; b < TM; ++b) y[b] = Bs[kk][tx * TM + b];
#pragma unroll
      for (int a = 0; a < TM; ++a)
#pragma unroll
        for (int b = 0; b < TM; ++b) acc[a][b] = fmaf(x[a], y[b], acc[a][b]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int a = 0; a < TM; ++a) {
    const int64_t i = i0 + ty * TM + a;
    if (i >= p.n) continue;
#pragma unroll
    for (int b = 0; b < TM; ++b) {
      const int64_t j = j0 + tx * TM + b;
      if (j >= p.n || (p.upper ? i > j : i < j)) continue;
      float* out = p.c + i * p.cs0 + j * p.cs1;
      *out = p.beta == 0.0f ? p.alpha * acc[a][b] : fmaf(p.beta, *out, p.alpha * acc[a][b]);
    }
  }
}

// alpha == 0 or k == 0: the triangle becomes beta * C (zeros for beta == 0, C unread).
__global__ void scale_triangle(int64_t n, float* c, int64_t cs0, int64_t cs1, float beta, bool upper) {
  const int64_t total = n * n;
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < total;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = w / n, i = w - j * n;
    if (upper ? i > j : i < j) continue;
    float* out = c + i * cs0 + j * cs1;
    *out = beta == 0.0f ? 0.0f : beta * *out;
  }
}

}  // namespace

extern "C" int kgb_blas_ssyrk(int uplo, int trans, double alpha, const kgb_tensor* A, double beta, kgb_tensor* C,
                              kgb_stream stream) {
  if (A->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || C->rank != 2 || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2) return KGB_ERR_INVALID;
  const bool t = trans != 0;
  const int64_t n = C->sizes[0], k = t ? A->sizes[0] : A->sizes[1];
  if (C->sizes[1] != n || (t ? A->sizes[1] : A->sizes[0]) != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  SyrkArgs p;
  p.n = n;
  p.k = k;
  p.a = static_cast<const float*>(A->data);
  p.si = t ? A->strides[1] : A->strides[0];
  p.sl = t ? A->strides[0] : A->strides[1];
  p.c = static_cast<float*>(C->data);
  p.cs0 = C->strides[0];
  p.cs1 = C->strides[1];
  p.alpha = static_cast<float>(alpha);
  p.beta = static_cast<float>(beta);
  p.upper = uplo == 1;
  p.l_fast = p.sl == 1 && p.si != 1;
  if (p.alpha == 0.0f || k == 0) {
    const int64_t blocks = (n * n + 255) / 256;
    scale_triangle<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, s>>>(n, p.c, p.cs0, p.cs1, p.beta, p.upper);
  } else {
    const int64_t nb = (n + BM - 1) / BM, tiles = nb * (nb + 1) / 2;
    syrk_tiled<<<static_cast<unsigned>(tiles), THREADS, 0, s>>>(p);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
