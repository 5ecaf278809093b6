// blas/saxpy on the CPU: y[i*incy] = alpha * x[i*incx] + y[i*incy].
//
// A streaming kernel bound by memory bandwidth: the index range is split
// statically over OpenMP threads (each thread streams one contiguous block of
// both vectors), unit increments take a fused multiply-add loop the compiler
// vectorises (also a reversed x, incx == -1), other increments a strided loop
// (data[i * inc] is element i for either sign of inc). Small vectors stay on one
// thread, where starting a parallel region would cost more than the work.
#include <math.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kParallelMin = 1 << 15;  // elements below which one thread is faster
constexpr int64_t kBlock = 1 << 14;        // elements per scheduling block

inline void axpy_range(int64_t begin, int64_t end, float alpha, const float* x, int64_t incx, float* y, int64_t incy) {
  if (incx == 1 && incy == 1) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) y[i] = fmaf(alpha, x[i], y[i]);
  } else if (incx == -1 && incy == 1) {  // reversed x: still one vectorisable stream each
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) y[i] = fmaf(alpha, x[-i], y[i]);
  } else if (incx == 0) {
    const float x0 = x[0];  // every element reads x[0]
    for (int64_t i = begin; i < end; ++i) y[i * incy] = fmaf(alpha, x0, y[i * incy]);
  } else {
    for (int64_t i = begin; i < end; ++i) y[i * incy] = fmaf(alpha, x[i * incx], y[i * incy]);
  }
}

}  // namespace

extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0];
  const float a = static_cast<float>(alpha);
  if (n == 0 || a == 0.0f) return KGB_OK;  // BLAS: alpha == 0 leaves y as it is
  const float* xp = static_cast<const float*>(x->data);
  float* yp = static_cast<float*>(y->data);
  const int64_t incx = x->strides[0], incy = y->strides[0];

  if (n < kParallelMin) {
    axpy_range(0, n, a, xp, incx, yp, incy);
    return KGB_OK;
  }
  // schedule(static) hands each thread one contiguous run of blocks.
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
    axpy_range(b * kBlock, end, a, xp, incx, yp, incy);
  }
  return KGB_OK;
}
