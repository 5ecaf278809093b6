// blas/daxpy on the CPU: y[i*incy] = alpha * x[i*incx] + y[i*incy], f64.
//
// Memory bound: the index range is split statically over OpenMP threads, so
// each thread streams one contiguous block of both vectors. Unit increments
// take a multiply-add loop the compiler vectorises; a reversed x with unit y
// (incx == -1) reads x backwards in the same vectorisable form; other
// increments (negative ones included: data[i * inc] is element i for either
// sign) a strided loop. Small vectors stay on one thread.
#include <math.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kParallelMin = 1 << 15;  // elements below which one thread is faster
constexpr int64_t kBlock = 1 << 13;        // elements per scheduling block

inline void axpy_range(int64_t begin, int64_t end, double alpha, const double* x, int64_t incx, double* y, int64_t incy) {
  if (incx == 1 && incy == 1) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) y[i] = fma(alpha, x[i], y[i]);
  } else if (incx == -1 && incy == 1) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) y[i] = fma(alpha, x[-i], y[i]);
  } else if (incx == 0) {
    const double x0 = x[0];  // every element reads x[0]
    for (int64_t i = begin; i < end; ++i) y[i * incy] = fma(alpha, x0, y[i * incy]);
  } else {
    for (int64_t i = begin; i < end; ++i) y[i * incy] = fma(alpha, x[i * incx], y[i * incy]);
  }
}

}  // namespace

extern "C" int kgb_blas_daxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_F64 || y->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0];
  if (n <= 0 || alpha == 0.0) return KGB_OK;  // BLAS: alpha == 0 leaves y as it is, x unread
  const double* xp = static_cast<const double*>(x->data);
  double* yp = static_cast<double*>(y->data);
  const int64_t incx = x->strides[0], incy = y->strides[0];

  if (n < kParallelMin) {
    axpy_range(0, n, alpha, xp, incx, yp, incy);
    return KGB_OK;
  }
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
    axpy_range(b * kBlock, end, alpha, xp, incx, yp, incy);
  }
  return KGB_OK;
}
