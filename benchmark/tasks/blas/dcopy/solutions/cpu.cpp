// blas/dcopy on the CPU: y[i*incy] = x[i*incx], f64.
//
// Memory bound. Equal unit increments (both +1, or both -1, which pairs the
// same memory block from its lowest address) are one block copy, split over
// OpenMP threads in contiguous chunks of memcpy. A reversed x with unit y
// (incx == -1) is a vectorisable reversed loop; other increments (incx == 0
// repeats x[0]) a strided loop, also split over threads for large n.
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kParallelMin = 1 << 16;  // elements below which one thread is faster
constexpr int64_t kBlock = 1 << 14;        // elements per scheduling block

inline void copy_range(int64_t begin, int64_t end, const double* x, int64_t incx, double* y, int64_t incy) {
  if (incx == -1 && incy == 1) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) y[i] = x[-i];
  } else if (incx == 0) {
    const double x0 = x[0];
    for (int64_t i = begin; i < end; ++i) y[i * incy] = x0;
  } else {
    for (int64_t i = begin; i < end; ++i) y[i * incy] = x[i * incx];
  }
}

}  // namespace

extern "C" int kgb_blas_dcopy(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  if (n <= 0) return KGB_OK;
  const double* xp = static_cast<const double*>(x->data);
  double* yp = static_cast<double*>(y->data);
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  if (incx == incy && (incx == 1 || incx == -1)) {
    // One block of n elements starting at each vector's lowest address.
    const double* from = incx == 1 ? xp : xp - (n - 1);
    double* to = incx == 1 ? yp : yp - (n - 1);
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
      memcpy(to + b * kBlock, from + b * kBlock, sizeof(double) * static_cast<size_t>(end - b * kBlock));
    }
    return KGB_OK;
  }
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
    copy_range(b * kBlock, end, xp, incx, yp, incy);
  }
  return KGB_OK;
}
