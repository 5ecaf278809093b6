// blas/zswap on the CPU: x[i*incx] <-> y[i*incy], c128 (two doubles each).
//
// Memory bound. The index range is split statically over OpenMP threads in
// contiguous blocks. Equal unit increments (both +1, or both -1: the same
// memory blocks from their lowest addresses) swap two contiguous blocks of
// doubles in a loop the compiler vectorises; a reversed x with unit y
// (incx == -1) swaps element pairs in a reversed loop; other increments take a
// strided loop.
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kParallelMin = 1 << 14;  // elements below which one thread is faster
constexpr int64_t kBlock = 1 << 12;        // complex elements per scheduling block

// x and y point at doubles; element i at x[2 * i * incx].
inline void swap_range(int64_t begin, int64_t end, double* x, int64_t incx, double* y, int64_t incy) {
  if (incx == 1 && incy == 1) {
#pragma omp simd
    for (int64_t k = 2 * begin; k < 2 * end; ++k) {
      const double t = x[k];
      x[k] = y[k];
      y[k] = t;
    }
  } else if (incx == -1 && incy == 1) {
    for (int64_t i = begin; i < end; ++i) {
      const double tr = x[-2 * i], ti = x[-2 * i + 1];
      x[-2 * i] = y[2 * i];
      x[-2 * i + 1] = y[2 * i + 1];
      y[2 * i] = tr;
      y[2 * i + 1] = ti;
    }
  } else {
    for (int64_t i = begin; i < end; ++i) {
      double* a = x + 2 * i * incx;
      double* b = y + 2 * i * incy;
      const double tr = a[0], ti = a[1];
      a[0] = b[0];
      a[1] = b[1];
      b[0] = tr;
      b[1] = ti;
    }
  }
}

}  // namespace

extern "C" int kgb_blas_zswap(kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0];
  int64_t incx = x->strides[0], incy = y->strides[0];
  if (n <= 0) return KGB_OK;
  double* xp = static_cast<double*>(x->data);
  double* yp = static_cast<double*>(y->data);
  if (incx == -1 && incy == -1) {  // the same pairing from the lowest addresses
    xp -= 2 * (n - 1);
    yp -= 2 * (n - 1);
    incx = incy = 1;
  }
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
    swap_range(b * kBlock, end, xp, incx, yp, incy);
  }
  return KGB_OK;
}
