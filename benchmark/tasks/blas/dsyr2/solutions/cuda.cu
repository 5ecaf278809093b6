// blas/dsyr2 on CUDA (sm_90): A(i, j) += alpha * (x[i] * y[j] + y[i] * x[j])
// on the `uplo` triangle of a column-major f64 matrix (LOWER = 0: i >= j,
// UPPER = 1: i <= j); the other triangle is neither read nor written.
//
// Memory bound: every element of the triangle is read and written once. A
// block of 256 threads owns 256 * kRowsPerThread consecutive rows of a tile
// of kCols columns; blocks lying wholly outside the triangle return at once.
// Each thread keeps x and y of its rows in registers and walks the tile's
// columns, so a warp reads and writes one contiguous run of a column per
// step (coalesced); when every column starts 16-byte aligned the two rows of
// a thread move as one double2, and a pair straddling the diagonal updates
// only its element inside the triangle (the other is written back as it was
// read, bit for bit, by the same thread). Increments of either sign:
// data[i * inc] is element i. alpha == 0 returns before reading x or y.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kCols = 16;         // columns per block tile
constexpr int kRowsPerThread = 2;

struct Params {
  int64_t n;
  bool lower;
  double alpha;
  const double* x;
  int64_t incx;
  const double* y;
  int64_t incy;
  double* a;
  int64_t lda;
  bool vec;  // every column starts 16-byte aligned: pairs of rows move as double2
};

__device__ __forceinline__ bool inside(bool lower, int64_t i, int64_t j) { return lower ? i >= j : i <= j; }

__global__ void __launch_bounds__(kThreads) dsyr2_kernel(Params p) {
  constexpr int64_t kBlockRows = static_cast<int64_t>(kThreads) * kRowsPerThread;
  const int64_t row_begin = static_cast<int64_t>(blockIdx.y) * kBlockRows;
  const int64_t j0 = static_cast<int64_t>(blockIdx.x) * kCols;
  const int64_t j1 = j0 + kCols < p.n ? j0 + kCols : p.n;
  // Whole tile outside the triangle: lower needs some row >= some column.
  if (p.lower ? row_begin + kBlockRows - 1 < j0 : row_begin > j1 - 1) return;
  const int64_t i = row_begin + static_cast<int64_t>(threadIdx.x) * kRowsPerThread;
  if (i >= p.n) return;
  const bool pair = i + 1 < p.n;
  const double x0 = p.alpha * __ldg(p.x + i * p.incx), y0 = p.alpha * __ldg(p.y + i * p.incy);
  const double x1 = pair ? p.alpha * __ldg(p.x + (i + 1) * p.incx) : 0.0;
  const double y1 = pair ? p.alpha * __ldg(p.y + (i + 1) * p.incy) : 0.0;
  for (int64_t j = j0; j < j1; ++j) {
    const bool in0 = inside(p.lower, i, j), in1 = pair && inside(p.lower, i + 1, j);
    if (!in0 && !in1) continue;
    const double xj = __ldg(p.x + j * p.incx), yj = __ldg(p.y + j * p.incy);
    double* col = p.a + j * p.lda + i;
    if (p.vec && pair) {
      double2 v = *reinterpret_cast<double2*>(col);
      if (in0) v.x = fma(x0, yj, fma(y0, xj, v.x));
      if (in1) v.y = fma(x1, yj, fma(y1, xj, v.y));
      *reinterpret_cast<double2*>(col) = v;
    } else {
      if (in0) col[0] = fma(x0, yj, fma(y0, xj, col[0]));
      if (in1) col[1] = fma(x1, yj, fma(y1, xj, col[1]));
    }
  }
}

}  // namespace

extern "C" int kgb_blas_dsyr2(int uplo, double alpha, const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* A, kgb_stream stream) {
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64 || A->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || A->rank != 2 || (uplo != 0 && uplo != 1)) return KGB_ERR_INVALID;
  Params p{};
  p.n = A->sizes[0];
  if (A->sizes[1] != p.n || x->sizes[0] != p.n || y->sizes[0] != p.n) return KGB_ERR_INVALID;
  if (p.n == 0 || alpha == 0.0) return KGB_OK;  // BLAS: alpha == 0 reads neither x nor y
  p.lower = uplo == 0;
  p.alpha = alpha;
  p.x = static_cast<const double*>(x->data);
  p.incx = x->strides[0];
  p.y = static_cast<const double*>(y->data);
  p.incy = y->strides[0];
  p.a = static_cast<double*>(A->data);
  p.lda = p.n > 1 ? A->strides[1] : 1;
  p.vec = (reinterpret_cast<uintptr_t>(p.a) & 15) == 0 && p.lda % 2 == 0;
  const int64_t block_rows = static_cast<int64_t>(kThreads) * kRowsPerThread;
  // x: column tiles (up to 2^31 - 1), y: row blocks (up to 65535 * 512 rows).
  const dim3 grid(static_cast<unsigned>((p.n + kCols - 1) / kCols), static_cast<unsigned>((p.n + block_rows - 1) / block_rows));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  dsyr2_kernel<<<grid, kThreads, 0, s>>>(p);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
