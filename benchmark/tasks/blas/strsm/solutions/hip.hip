// blas/strsm in HIP (gfx90a), a port of the CUDA solution: B := X with op(A) X = alpha B (LEFT) or
// X op(A) = alpha B (RIGHT), column-major, in float.
//
// Every case is one forward substitution L Y = alpha R with a lower-triangular
// L: for RIGHT the right-hand sides are the rows of B and the matrix is
// op(A)^T, and an upper-triangular matrix is walked in reverse index order.
// L is never materialised: L(i, l) is read from the stored triangle of A
// through index arithmetic (the other triangle, and the diagonal under
// CUBLAS_DIAG_UNIT, are never touched).
//
// The right-hand sides are independent: one block of 32 x 8 threads owns a
// panel of 32 of them and walks the rows in blocks of 32. For a row block it
// first subtracts the contribution of every row already solved, a small GEMM
// with 32 x 32 tiles of L and of the solved rows staged in shared memory
// (each thread keeps 4 rows of one right-hand side in registers), then
// finishes the 32 x 32 diagonal triangle in shared memory and writes the
// solved rows back to B, where later row blocks of the same block read them.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int Q = 32;        // right-hand sides per block (threadIdx.x)
constexpr int ROWS = 8;      // threadIdx.y
constexpr int RB = 32;       // rows per row block
constexpr int PER = RB / ROWS;

struct TrsmArgs {
  const float* a;
  int64_t ti, tl;  // T(i, l) at a[i * ti + l * tl]
  float* b;
  int64_t sp, sq;  // element p of right-hand side q at b[p' * sp + q * sq]
  int64_t d, rhs;
  bool reversed, unit;
  float alpha;
};

__device__ __forceinline__ int64_t flip(const TrsmArgs& p, int64_t i) { return p.reversed ? p.d - 1 - i : i; }
__device__ __forceinline__ float l_at(const TrsmArgs& p, int64_t i, int64_t l) {
  return p.a[flip(p, i) * p.ti + flip(p, l) * p.tl];
}

__global__ void __launch_bounds__(Q * ROWS) trsm_panels(TrsmArgs p) {
  __shared__ float Ls[RB][RB + 1];  // L(i0 + r, l0 + c)
  __shared__ float Xs[RB][Q + 1];   // solved Y(l0 + c, q), then the diagonal block's values
  __shared__ float inv_diag[RB];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * Q + tx;
  const int64_t q = static_cast<int64_t>(blockIdx.x) * Q + tx;
  const bool active = q < p.rhs;
  float* bq = p.b + (active ? q : 0) * p.sq;

  for (int64_t i0 = 0; i0 < p.d; i0 += RB) {
    float acc[PER];
#pragma unroll
    for (int u = 0; u < PER; ++u) {
      const int64_t i = i0 + ty + u * ROWS;
      acc[u] = (active && i < p.d) ? p.alpha * bq[flip(p, i) * p.sp] : 0.0f;
    }
    // Rows already solved: acc -= L(i, l) Y(l, q) for l < i0, 32 at a time.
    for (int64_t l0 = 0; l0 < i0; l0 += RB) {
      for (int e = tid; e < RB * RB; e += Q * ROWS) {
        const int r = e / RB, c = e % RB;  // consecutive threads: consecutive l
        const int64_t i = i0 + r;
        Ls[r][c] = i < p.d ? l_at(p, i, l0 + c) : 0.0f;
      }
      for (int e = tid; e < RB * Q; e += Q * ROWS) {
        const int c = e / Q, qq = e % Q;
        const int64_t qg = static_cast<int64_t>(blockIdx.x) * Q + qq;
        Xs[c][qq] = qg < p.rhs ? p.b[flip(p, l0 + c) * p.sp + qg * p.sq] : 0.0f;
      }
      __syncthreads();
#pragma unroll 8
      for (int c = 0; c < RB; ++c) {
        const float x = Xs[c][tx];
#pragma unroll
        for (int u = 0; u < PER; ++u) acc[u] = fmaf(-Ls[ty + u * ROWS][c], x, acc[u]);
      }
      __syncthreads();
    }
    // The diagonal block: stage its lower triangle and the partial sums.
    const int rows_here = static_cast<int>(p.d - i0 < RB ? p.d - i0 : RB);
    for (int e = tid; e < RB * RB; e += Q * ROWS) {
      const int r = e / RB, c = e % RB;
      Ls[r][c] = (r < rows_here && c < r) ? l_at(p, i0 + r, i0 + c) : 0.0f;
    }
    if (tid < rows_here) inv_diag[tid] = p.unit ? 1.0f : 1.0f / l_at(p, i0 + tid, i0 + tid);
#pragma unroll
    for (int u = 0; u < PER; ++u) Xs[ty + u * ROWS][tx] = acc[u];
    __syncthreads();
    for (int s = 0; s < rows_here; ++s) {
      // Row s is final once scaled; every later row subtracts its share.
      const float xs = Xs[s][tx] * inv_diag[s];
      __syncthreads();
      if (ty == 0) Xs[s][tx] = xs;
#pragma unroll
      for (int u = 0; u < PER; ++u) {
        const int r = ty + u * ROWS;
        if (r > s) Xs[r][tx] = fmaf(-Ls[r][s], xs, Xs[r][tx]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int u = 0; u < PER; ++u) {
      const int r = ty + u * ROWS;
      if (active && r < rows_here) bq[flip(p, i0 + r) * p.sp] = Xs[r][tx];
    }
    __syncthreads();  // the writes above are read back by the next row block
  }
}

__global__ void zero_matrix(float* b, int64_t m, int64_t n, int64_t bs0, int64_t bs1) {
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < m * n;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = w / m, i = w - j * m;
    b[i * bs0 + j * bs1] = 0.0f;
  }
}

}  // namespace

extern "C" int kgb_blas_strsm(int side, int uplo, int trans, int diag, double alpha, const kgb_tensor* A, kgb_tensor* B,
                              kgb_stream stream) {
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2) return KGB_ERR_INVALID;
  if ((side != 0 && side != 1) || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const bool left = side == 0;
  const int64_t m = B->sizes[0], n = B->sizes[1], d = left ? m : n;
  if (A->sizes[0] != d || A->sizes[1] != d) return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  const float fa = static_cast<float>(alpha);
  if (fa == 0.0f) {  // B = 0, A not read
    const int64_t blocks = (m * n + 255) / 256;
    zero_matrix<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, s>>>(static_cast<float*>(B->data), m, n,
                                                                                       B->strides[0], B->strides[1]);
    return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
  }
  const bool t_transposed = (trans != 0) != !left;  // T = op(A) (LEFT) or op(A)^T (RIGHT)
  TrsmArgs p;
  p.a = static_cast<const float*>(A->data);
  p.ti = t_transposed ? A->strides[1] : A->strides[0];
  p.tl = t_transposed ? A->strides[0] : A->strides[1];
  p.b = static_cast<float*>(B->data);
  p.sp = left ? B->strides[0] : B->strides[1];
  p.sq = left ? B->strides[1] : B->strides[0];
  p.d = d;
  p.rhs = left ? n : m;
  p.reversed = (uplo == 0) == t_transposed;  // T upper triangular: solved backwards
  p.unit = diag == 1;
  p.alpha = fa;
  const dim3 block(Q, ROWS);
  trsm_panels<<<static_cast<unsigned>((p.rhs + Q - 1) / Q), block, 0, s>>>(p);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
