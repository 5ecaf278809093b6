// blas/cdotu on the CPU: result[0] = sum of x[i*incx] * y[i*incy], c64,
// unconjugated.
//
// Memory bound. Complex elements are read as float pairs; the index range is
// cut into fixed blocks, each summed in float (real and imaginary parts as
// two SIMD reductions: unit increments and a reversed x with unit y
// vectorise, other increments take a strided loop). Block sums land in an
// array and are added in double in block order, so the result does not
// depend on the thread count (deterministic) and blocking keeps the float
// error small.
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kBlock = 1 << 11;         // complex elements summed in float
constexpr int64_t kParallelMin = 1 << 15;  // elements below which one thread is faster

struct Sum {
  float re, im;
};

// x and y point at float pairs; element i at x[2 * i * incx].
Sum block_dot(int64_t begin, int64_t end, const float* x, int64_t incx, const float* y, int64_t incy) {
  float re = 0.0f, im = 0.0f;
  if (incx == 1 && incy == 1) {
#pragma omp simd reduction(+ : re, im)
    for (int64_t i = begin; i < end; ++i) {
      const float xr = x[2 * i], xi = x[2 * i + 1], yr = y[2 * i], yi = y[2 * i + 1];
      re += xr * yr - xi * yi;
      im += xr * yi + xi * yr;
    }
  } else if (incx == -1 && incy == 1) {
#pragma omp simd reduction(+ : re, im)
    for (int64_t i = begin; i < end; ++i) {
      const float xr = x[-2 * i], xi = x[-2 * i + 1], yr = y[2 * i], yi = y[2 * i + 1];
      re += xr * yr - xi * yi;
      im += xr * yi + xi * yr;
    }
  } else {
    for (int64_t i = begin; i < end; ++i) {
      const float xr = x[2 * i * incx], xi = x[2 * i * incx + 1], yr = y[2 * i * incy], yi = y[2 * i * incy + 1];
      re += xr * yr - xi * yi;
      im += xr * yi + xi * yr;
    }
  }
  return {re, im};
}

}  // namespace

extern "C" int kgb_blas_cdotu(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_C64 || y->dtype != KGB_C64 || result->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const float* xp = static_cast<const float*>(x->data);
  const float* yp = static_cast<const float*>(y->data);
  const int64_t blocks = n > 0 ? (n + kBlock - 1) / kBlock : 0;
  std::vector<Sum> partial(static_cast<size_t>(blocks));
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
    partial[static_cast<size_t>(b)] = block_dot(b * kBlock, end, xp, incx, yp, incy);
  }
  double re = 0.0, im = 0.0;
  for (const Sum& p : partial) {
    re += p.re;
    im += p.im;
  }
  float* out = static_cast<float*>(result->data);
  out[0] = static_cast<float>(re);
  out[1] = static_cast<float>(im);
  return KGB_OK;
}
