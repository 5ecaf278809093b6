// blas/dsbmv on CUDA (sm_90): y := alpha * A * x + beta * y for an f64
// symmetric band matrix given by one triangle of its (k + 1) x n column-major
// band (uplo LOWER = 0: diagonal in band row 0; UPPER = 1: diagonal in band
// row k). The unused band corners are never read.
//
// One thread per output, a grid-stride loop. Row i of the symmetric matrix
// is band column i (the stored triangle's column i read as a row, diagonal
// included; unit stride for the thread) plus the off-diagonal elements
// A(i, j) of the neighbouring columns, one per column along the band
// diagonal through (i, i). Neighbouring threads touch neighbouring band
// columns, and the next steps reuse the same 32-byte sectors through L1
// (__ldg), so each sector of the band comes from memory once; consecutive
// threads read consecutive elements of x. Each thread writes only its own
// y[i], so y is updated in place; beta == 0 never reads y, alpha == 0 reads
// neither A nor x. Increments of either sign: data[i * inc] is element i.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Params {
  const double* a;
  int64_t lda, n, k;
  bool upper, use_a, read_y;
  double alpha, beta;
  const double* x;
  int64_t incx;
  double* y;
  int64_t incy;
};

__global__ void __launch_bounds__(kThreads) dsbmv_kernel(Params p) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < p.n;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    double sum = 0.0;
    if (p.use_a) {
      // Band column i: band row r pairs with x(j0 + r).
      const int64_t lo = p.upper ? (p.k - i > 0 ? p.k - i : 0) : 0;
      const int64_t hi = p.upper ? p.k : (p.n - 1 - i < p.k ? p.n - 1 - i : p.k);
      const int64_t j0 = p.upper ? i - p.k : i;
      const double* col = p.a + i * p.lda;
#pragma unroll 4
      for (int64_t r = lo; r <= hi; ++r) sum = fma(__ldg(col + r), __ldg(p.x + (j0 + r) * p.incx), sum);
      // Off-diagonal A(i, j) of the other columns: band row r of column
      // j = i + k - r (upper, r < k) or j = i - r (lower, r > 0).
      const int64_t lo2 = p.upper ? (i + p.k - (p.n - 1) > 0 ? i + p.k - (p.n - 1) : 0) : 1;
      const int64_t hi2 = p.upper ? p.k - 1 : (i < p.k ? i : p.k);
#pragma unroll 4
      for (int64_t r = lo2; r <= hi2; ++r) {
        const int64_t j = p.upper ? i + p.k - r : i - r;
        sum = fma(__ldg(p.a + r + j * p.lda), __ldg(p.x + j * p.incx), sum);
      }
    }
    double* yi = p.y + i * p.incy;
    double v = p.alpha * sum;
    if (p.read_y) v = fma(p.beta, *yi, v);
    *yi = v;
  }
}

}  // namespace

extern "C" int kgb_blas_dsbmv(int uplo, double alpha, const kgb_tensor* A, const kgb_tensor* x, double beta, kgb_tensor* y,
                              kgb_stream stream) {
  if (A->dtype != KGB_F64 || x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || y->rank != 1 || (uplo != 0 && uplo != 1)) return KGB_ERR_INVALID;
  Params p{};
  p.k = A->sizes[0] - 1;
  p.n = A->sizes[1];
  if (p.k < 0 || x->sizes[0] != p.n || y->sizes[0] != p.n) return KGB_ERR_INVALID;
  if (p.n == 0) return KGB_OK;
  p.a = static_cast<const double*>(A->data);
  p.lda = p.n > 1 ? A->strides[1] : p.k + 1;
  p.upper = uplo == 1;
  p.alpha = alpha;
  p.beta = beta;
  p.use_a = alpha != 0.0;  // BLAS: alpha == 0 reads neither A nor x
  p.read_y = beta != 0.0;  // beta == 0 never reads y
  p.x = static_cast<const double*>(x->data);
  p.incx = x->strides[0];
  p.y = static_cast<double*>(y->data);
  p.incy = y->strides[0];
  const int64_t blocks = (p.n + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 132 * 32 ? blocks : 132 * 32);
  dsbmv_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
