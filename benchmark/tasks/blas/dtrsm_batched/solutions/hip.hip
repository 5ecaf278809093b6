// blas/dtrsm_batched in HIP (gfx90a), a port of the CUDA solution: for every item b, B[b] := X with
// op(A[b]) X = alpha B[b] (LEFT) or X op(A[b]) = alpha B[b] (RIGHT),
// column-major, in double.
//
// blockIdx.y is the item: its matrices are found through the lists' device
// pointer arrays (device_data), as cublasDtrsmBatched reads them. Every item
// is one forward substitution L Y = alpha R with a lower-triangular L: for
// RIGHT the right-hand sides are the rows of B and the matrix is op(A)^T, and
// an upper-triangular matrix is walked in reverse index order. L(i, l) is read
// from the stored triangle of A through index arithmetic (the other triangle,
// and the diagonal under CUBLAS_DIAG_UNIT, are never touched).
//
// One block of 32 x 8 threads owns a panel of 32 right-hand sides of one item
// and walks the rows in blocks of 32: it subtracts the contribution of the
// rows already solved (32 x 32 tiles of L and of the solved rows staged in
// shared memory, each thread keeping 4 rows of one right-hand side in
// registers), finishes the 32 x 32 diagonal triangle in shared memory and
// writes the solved rows back to B[b], where later row blocks read them.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int Q = 32;        // right-hand sides per block (threadIdx.x)
constexpr int ROWS = 8;      // threadIdx.y
constexpr int RB = 32;       // rows per row block
constexpr int PER = RB / ROWS;

struct TrsmArgs {
  const double* const* a;  // device pointer arrays
  double* const* b;
  int64_t ti, tl;  // T(i, l) at a[b][i * ti + l * tl]
  int64_t sp, sq;  // element p of right-hand side q at b[b][p' * sp + q * sq]
  int64_t d, rhs;
  bool reversed, unit;
  double alpha;
};

__device__ __forceinline__ int64_t flip(const TrsmArgs& p, int64_t i) { return p.reversed ? p.d - 1 - i : i; }
__device__ __forceinline__ double l_at(const TrsmArgs& p, const double* a, int64_t i, int64_t l) {
  return a[flip(p, i) * p.ti + flip(p, l) * p.tl];
}

__global__ void __launch_bounds__(Q * ROWS) trsm_panels(TrsmArgs p) {
  __shared__ double Ls[RB][RB + 1];  // L(i0 + r, l0 + c)
  __shared__ double Xs[RB][Q + 1];   // solved Y(l0 + c, q), then the diagonal block's values
  __shared__ double inv_diag[RB];
  const double* a = p.a[blockIdx.y];
  double* const bm = p.b[blockIdx.y];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * Q + tx;
  const int64_t q = static_cast<int64_t>(blockIdx.x) * Q + tx;
  const bool active = q < p.rhs;
  double* bq = bm + (active ? q : 0) * p.sq;

  for (int64_t i0 = 0; i0 < p.d; i0 += RB) {
    double acc[PER];
#pragma unroll
    for (int u = 0; u < PER; ++u) {
      const int64_t i = i0 + ty + u * ROWS;
      acc[u] = (active && i < p.d) ? p.alpha * bq[flip(p, i) * p.sp] : 0.0;
    }
    // Rows already solved: acc -= L(i, l) Y(l, q) for l < i0, 32 at a time.
    for (int64_t l0 = 0; l0 < i0; l0 += RB) {
      for (int e = tid; e < RB * RB; e += Q * ROWS) {
        const int r = e / RB, c = e % RB;  // consecutive threads: consecutive l
        const int64_t i = i0 + r;
        Ls[r][c] = i < p.d ? l_at(p, a, i, l0 + c) : 0.0;
      }
      for (int e = tid; e < RB * Q; e += Q * ROWS) {
        const int c = e / Q, qq = e % Q;
        const int64_t qg = static_cast<int64_t>(blockIdx.x) * Q + qq;
        Xs[c][qq] = qg < p.rhs ? bm[flip(p, l0 + c) * p.sp + qg * p.sq] : 0.0;
      }
      __syncthreads();
#pragma unroll 8
      for (int c = 0; c < RB; ++c) {
        const double x = Xs[c][tx];
#pragma unroll
        for (int u = 0; u < PER; ++u) acc[u] = fma(-Ls[ty + u * ROWS][c], x, acc[u]);
      }
      __syncthreads();
    }
    // The diagonal block: stage its lower triangle and the partial sums.
    const int rows_here = static_cast<int>(p.d - i0 < RB ? p.d - i0 : RB);
    for (int e = tid; e < RB * RB; e += Q * ROWS) {
      const int r = e / RB, c = e % RB;
      Ls[r][c] = (r < rows_here && c < r) ? l_at(p, a, i0 + r, i0 + c) : 0.0;
    }
    if (tid < rows_here) inv_diag[tid] = p.unit ? 1.0 : 1.0 / l_at(p, a, i0 + tid, i0 + tid);
#pragma unroll
    for (int u = 0; u < PER; ++u) Xs[ty + u * ROWS][tx] = acc[u];
    __syncthreads();
    for (int s = 0; s < rows_here; ++s) {
      // Row s is final once scaled; every later row subtracts its share.
      const double xs = Xs[s][tx] * inv_diag[s];
      __syncthreads();
      if (ty == 0) Xs[s][tx] = xs;
#pragma unroll
      for (int u = 0; u < PER; ++u) {
        const int r = ty + u * ROWS;
        if (r > s) Xs[r][tx] = fma(-Ls[r][s], xs, Xs[r][tx]);
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

__global__ void zero_items(double* const* b, int64_t m, int64_t n, int64_t bs0, int64_t bs1) {
  double* bm = b[blockIdx.y];
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < m * n;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = w / m, i = w - j * m;
    bm[i * bs0 + j * bs1] = 0.0;
  }
}

}  // namespace

extern "C" int kgb_blas_dtrsm_batched(int side, int uplo, int trans, int diag, double alpha, const kgb_tensor_list* Aarray,
                                      kgb_tensor_list* Barray, kgb_stream stream) {
  if ((side != 0 && side != 1) || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const int64_t batch = Barray->count;
  if (Aarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  if (!Aarray->device_data || !Barray->device_data) return KGB_ERR_INVALID;
  const kgb_tensor* A = Aarray->items[0];  // every item shares sizes and strides
  const kgb_tensor* B = Barray->items[0];
  if (A->dtype != KGB_F64 || B->dtype != KGB_F64 || A->rank != 2 || B->rank != 2) return KGB_ERR_UNSUPPORTED;
  const bool left = side == 0;
  const int64_t m = B->sizes[0], n = B->sizes[1], d = left ? m : n;
  if (A->sizes[0] != d || A->sizes[1] != d) return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  if (batch > 65535) return KGB_ERR_UNSUPPORTED;  // one grid row per item
  hipStream_t s = static_cast<hipStream_t>(stream);
  double* const* bptrs = reinterpret_cast<double* const*>(Barray->device_data);
  if (alpha == 0.0) {  // every B[b] = 0, A not read
    const int64_t blocks = (m * n + 255) / 256;
    const dim3 grid(static_cast<unsigned>(blocks < 64 ? blocks : 64), static_cast<unsigned>(batch));
    zero_items<<<grid, 256, 0, s>>>(bptrs, m, n, B->strides[0], B->strides[1]);
    return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
  }
  const bool t_transposed = (trans != 0) != !left;  // T = op(A) (LEFT) or op(A)^T (RIGHT)
  TrsmArgs p;
  p.a = reinterpret_cast<const double* const*>(Aarray->device_data);
  p.b = bptrs;
  p.ti = t_transposed ? A->strides[1] : A->strides[0];
  p.tl = t_transposed ? A->strides[0] : A->strides[1];
  p.sp = left ? B->strides[0] : B->strides[1];
  p.sq = left ? B->strides[1] : B->strides[0];
  p.d = d;
  p.rhs = left ? n : m;
  p.reversed = (uplo == 0) == t_transposed;  // T upper triangular: solved backwards
  p.unit = diag == 1;
  p.alpha = alpha;
  const dim3 block(Q, ROWS), grid(static_cast<unsigned>((p.rhs + Q - 1) / Q), static_cast<unsigned>(batch));
  trsm_panels<<<grid, block, 0, s>>>(p);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
