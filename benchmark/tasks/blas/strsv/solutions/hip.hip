// blas/strsv in HIP (a port of the CUDA solution): solves op(A) * z = x in place, f32,
// column-major A (uplo LOWER = 0 / UPPER = 1, trans N = 0 / T = 1 / C = 2,
// diag NON_UNIT = 0 / UNIT = 1; the other triangle, and the diagonal for
// UNIT, are never read).
//
// Blocked substitution over blocks of kNB = 64 unknowns in solve order
// (forward when op(A) is lower triangular, backward otherwise), one kernel
// launch per block on the harness stream, so the launches order the blocks
// and no inter-block synchronisation or scratch memory is needed. Launch k
// (the blocks solved so far end with block k):
// - block 0 applies block k's solution to the unknowns of block k + 1 (a
//   64 x 64 tile product), then solves block k + 1's diagonal block in the
//   first 32 lanes of one wavefront (32-wide shuffles, so the same code runs
//   on 32- and 64-wide hardware): each lane holds two unknowns, the solved
//   value is broadcast with a shuffle and the later unknowns subtract their multiple of it, 64 steps
//   without a block-wide barrier;
// - every other block applies block k's solution to a 64-row chunk of the
//   unknowns after block k + 1: x(rest) -= op(A)(rest, k) * x(k), so the
//   bulk of the matrix streams through the whole GPU.
// Tiles are staged in shared memory and always loaded along A's unit-stride
// index (rows of op(A) for N, columns for T/C), so every load of 64 threads is one
// coalesced 256-byte run. Only block 0 ever writes the unknowns it solves,
// and the other blocks read only solved unknowns and their own rows.
// Increments of either sign: data[i * incx] is element i.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kNB = 64;                 // unknowns per diagonal block
constexpr int kQ = 4;                   // threads per tile row
constexpr int kThreads = kNB * kQ;
constexpr int kMaxUpdateBlocks = 1024;  // update blocks per launch (grid-stride beyond)

struct Params {
  const float* a;
  int64_t lda, n, blocks;
  bool forward, transposed, unit;
  float* x;
  int64_t incx;
};

// Rows [first, first + count) of block kb (storage order).
__device__ __forceinline__ int64_t block_first(int64_t kb) { return kb * kNB; }
__device__ __forceinline__ int block_size(const Params& p, int64_t kb) {
  const int64_t rest = p.n - kb * kNB;
  return static_cast<int>(rest < kNB ? rest : kNB);
}

// tile[r][c] = op(A)(i0 + r, c0 + c) for r < rh, c < cw (0 elsewhere), loaded
// along A's unit-stride index. With `triangle`, only the entries a diagonal
// block's solve reads: c before r in solve order, and the diagonal unless unit.
__device__ __forceinline__ void load_tile(const Params& p, float (&tile)[kNB][kNB + 1], int64_t i0, int rh, int64_t c0, int cw,
                                          bool triangle) {
  const int tx = threadIdx.x % kNB, q = threadIdx.x / kNB;
  for (int k = q; k < kNB; k += kQ) {
    // N: thread tx owns row r = tx; T: column c = tx (the unit-stride index).
    const int r = p.transposed ? k : tx, c = p.transposed ? tx : k;
    bool use = r < rh && c < cw;
    if (triangle) use = use && ((p.forward ? c < r : c > r) || (c == r && !p.unit));
    float v = 0.0f;
    if (use) v = p.transposed ? p.a[(c0 + c) + (i0 + r) * p.lda] : p.a[(i0 + r) + (c0 + c) * p.lda];
    tile[r][c] = v;
  }
}

// out[r] = sum over c of tile[r][c] * xc[c] for the kNB rows (fixed order).
__device__ __forceinline__ void tile_times(const float (&tile)[kNB][kNB + 1], const float* xc, float (&part)[kQ][kNB],
                                           float* out) {
  const int tx = threadIdx.x % kNB, q = threadIdx.x / kNB;
  float sum = 0.0f;
  for (int c = q; c < kNB; c += kQ) sum = fmaf(tile[tx][c], xc[c], sum);
  part[q][tx] = sum;
  __syncthreads();
  if (q == 0) out[tx] = (part[0][tx] + part[1][tx]) + (part[2][tx] + part[3][tx]);
  __syncthreads();
}

__global__ void __launch_bounds__(kThreads) strsv_step(Params p, int64_t k) {
  __shared__ float tile[kNB][kNB + 1];
  __shared__ float part[kQ][kNB];
  __shared__ float xk[kNB];   // solved unknowns of block k
  __shared__ float acc[kNB];  // tile products
  const int tid = threadIdx.x;
  const int64_t next = k + 1;
  const int64_t kb_cur = p.forward ? k : p.blocks - 1 - k, kb_next = p.forward ? next : p.blocks - 1 - next;
  if (k >= 0 && tid < kNB) {
    const int cw = block_size(p, kb_cur);
    xk[tid] = tid < cw ? p.x[(block_first(kb_cur) + tid) * p.incx] : 0.0f;
  }
  __syncthreads();

  if (blockIdx.x == 0) {
    if (next >= p.blocks) return;
    const int64_t i0 = block_first(kb_next);
    const int rh = block_size(p, kb_next);
    if (k >= 0) {
      load_tile(p, tile, i0, rh, block_first(kb_cur), block_size(p, kb_cur), false);
      __syncthreads();
      tile_times(tile, xk, part, acc);
    } else if (tid < kNB) {
      acc[tid] = 0.0f;
    }
    load_tile(p, tile, i0, rh, i0, rh, true);  // the diagonal block
    __syncthreads();
    if (tid >= 32) return;
    const int lane = tid;
    float v0 = lane < rh ? p.x[(i0 + lane) * p.incx] - acc[lane] : 0.0f;
    float v1 = lane + 32 < rh ? p.x[(i0 + lane + 32) * p.incx] - acc[lane + 32] : 0.0f;
    for (int t = 0; t < rh; ++t) {
      const int kk = p.forward ? t : rh - 1 - t;
      float own = kk < 32 ? v0 : v1;
      if (!p.unit) own /= tile[kk][kk];
      const float xs = __shfl(own, kk & 31, 32);
      if (lane == (kk & 31)) {
        if (kk < 32) v0 = xs; else v1 = xs;
      }
      if (p.forward ? lane > kk : lane < kk) v0 = fmaf(-tile[lane][kk], xs, v0);
      if (p.forward ? lane + 32 > kk : lane + 32 < kk) v1 = fmaf(-tile[lane + 32][kk], xs, v1);
    }
    if (lane < rh) p.x[(i0 + lane) * p.incx] = v0;
    if (lane + 32 < rh) p.x[(i0 + lane + 32) * p.incx] = v1;
    return;
  }

  if (k < 0) return;
  // Unknowns after block k + 1 in solve order.
  const int64_t r_begin = p.forward ? block_first(kb_next) + kNB : 0;
  const int64_t r_end = p.forward ? p.n : block_first(kb_next);
  const int64_t c0 = block_first(kb_cur);
  const int cw = block_size(p, kb_cur);
  for (int64_t i0 = r_begin + static_cast<int64_t>(blockIdx.x - 1) * kNB; i0 < r_end; i0 += static_cast<int64_t>(gridDim.x - 1) * kNB) {
    const int rh = static_cast<int>(r_end - i0 < kNB ? r_end - i0 : kNB);
    load_tile(p, tile, i0, rh, c0, cw, false);
    __syncthreads();
    tile_times(tile, xk, part, acc);
    if (tid < rh) p.x[(i0 + tid) * p.incx] -= acc[tid];
  }
}

}  // namespace

extern "C" int kgb_blas_strsv(int uplo, int trans, int diag, const kgb_tensor* A, kgb_tensor* x, kgb_stream stream) {
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  Params p{};
  p.n = A->sizes[0];
  if (A->sizes[1] != p.n || x->sizes[0] != p.n) return KGB_ERR_INVALID;
  if (p.n == 0) return KGB_OK;
  p.a = static_cast<const float*>(A->data);
  p.lda = p.n > 1 ? A->strides[1] : 1;
  p.blocks = (p.n + kNB - 1) / kNB;
  p.transposed = trans != 0;
  p.forward = (uplo == 0) != p.transposed;
  p.unit = diag == 1;
  p.x = static_cast<float*>(x->data);
  p.incx = x->strides[0];
  hipStream_t s = static_cast<hipStream_t>(stream);
  for (int64_t k = -1; k + 1 < p.blocks; ++k) {
    // Rows after block k + 1 in solve order, in 64-row chunks, plus block 0.
    const int64_t rest = p.n - (k + 2) * kNB;
    const int64_t chunks = k >= 0 && rest > 0 ? (rest + kNB - 1) / kNB : 0;
    const unsigned grid = static_cast<unsigned>(1 + (chunks < kMaxUpdateBlocks ? chunks : kMaxUpdateBlocks));
    hipLaunchKernelGGL(strsv_step, dim3(grid), dim3(kThreads), 0, s, p, k);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
