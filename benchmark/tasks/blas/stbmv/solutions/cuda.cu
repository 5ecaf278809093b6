// blas/stbmv on CUDA (sm_90): x := op(A) * x for an f32 triangular band
// matrix in (k + 1) x n column-major band storage (uplo LOWER = 0: diagonal
// in band row 0; UPPER = 1: diagonal in band row k; trans N = 0 / T = 1 /
// C = 2; diag NON_UNIT = 0 / UNIT = 1). The unused band corners, and the
// diagonal row for UNIT, are never read.
//
// The product goes into a temporary vector allocated on the stream
// (cudaMallocAsync) and is then copied back into x, so the in-place update
// has no ordering hazard between threads. One thread per output, a
// grid-stride loop; thread i walks its band elements:
// - op T/C: band column i itself (unit stride for the thread), against a
//   window of x;
// - op N: the band diagonal through (i, i), one element of each of the
//   columns i .. i + k (upper) or i - k .. i (lower).
// Neighbouring threads touch neighbouring band columns, so a warp's loads of
// one step are lda apart but the next steps reuse the same 32-byte sectors
// through L1 (__ldg): each sector of the band comes from memory once.
// Consecutive threads read consecutive elements of x. Increments of either
// sign: data[i * incx] is element i.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Params {
  const float* a;
  int64_t lda, n, k;
  bool upper, transposed, unit;
  const float* x;
  int64_t incx;
};

__global__ void __launch_bounds__(kThreads) stbmv_product(Params p, float* __restrict out) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < p.n;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    // Band row r pairs band element (r, c) with x(j); [lo, hi] are the rows
    // used (the diagonal row left out for UNIT and added as x(i)).
    const int64_t diag_row = p.upper ? p.k : 0;
    int64_t lo, hi;
    if (p.transposed) {
      lo = p.upper ? (p.k - i > 0 ? p.k - i : 0) : 0;
      hi = p.upper ? p.k : (p.n - 1 - i < p.k ? p.n - 1 - i : p.k);
    } else {
      lo = p.upper ? (i + p.k - (p.n - 1) > 0 ? i + p.k - (p.n - 1) : 0) : 0;
      hi = p.upper ? p.k : (i < p.k ? i : p.k);
    }
    float sum = p.unit ? __ldg(p.x + i * p.incx) : 0.0f;
#pragma unroll 4
    for (int64_t r = lo; r <= hi; ++r) {
      if (p.unit && r == diag_row) continue;
      int64_t c, j;
      if (p.transposed) {
        c = i;
        j = p.upper ? i - p.k + r : i + r;
      } else {
        c = p.upper ? i + p.k - r : i - r;
        j = c;
      }
      sum = fmaf(__ldg(p.a + r + c * p.lda), __ldg(p.x + j * p.incx), sum);
    }
    out[i] = sum;
  }
}

__global__ void __launch_bounds__(kThreads) copy_back(int64_t n, const float* __restrict t, float* __restrict x, int64_t incx) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * kThreads)
    x[i * incx] = t[i];
}

unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 132 * 32 ? blocks : 132 * 32);
}

}  // namespace

extern "C" int kgb_blas_stbmv(int uplo, int trans, int diag, const kgb_tensor* A, kgb_tensor* x, kgb_stream stream) {
  if (A->dtype != KGB_F32 || x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  Params p{};
  p.k = A->sizes[0] - 1;
  p.n = A->sizes[1];
  if (p.k < 0 || x->sizes[0] != p.n) return KGB_ERR_INVALID;
  if (p.n == 0) return KGB_OK;
  p.a = static_cast<const float*>(A->data);
  p.lda = p.n > 1 ? A->strides[1] : p.k + 1;
  p.upper = uplo == 1;
  p.transposed = trans != 0;
  p.unit = diag == 1;
  float* xp = static_cast<float*>(x->data);
  p.x = xp;
  p.incx = x->strides[0];
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  float* t = nullptr;
  if (cudaMallocAsync(reinterpret_cast<void**>(&t), static_cast<size_t>(p.n) * sizeof(float), s) != cudaSuccess) return KGB_ERR_INVALID;
  stbmv_product<<<grid_for(p.n), kThreads, 0, s>>>(p, t);
  copy_back<<<grid_for(p.n), kThreads, 0, s>>>(p.n, t, xp, p.incx);
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t freed = cudaFreeAsync(t, s);
  return launched == cudaSuccess && freed == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
