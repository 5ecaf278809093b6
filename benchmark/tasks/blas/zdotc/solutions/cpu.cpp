// blas/zdotc on the CPU: result[0] = sum of conj(x[i*incx]) * y[i*incy], c128.
//
// Memory bound. Complex elements are read as double pairs; the index range is
// cut into fixed blocks, each summed in double (real and imaginary parts as
// two SIMD reductions: unit increments and a reversed x with unit y
// vectorise, other increments take a strided loop). Block sums land in an
// array and are added in block order, so the result does not depend on the
// thread count (deterministic).
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kBlock = 1 << 11;         // complex elements per block
constexpr int64_t kParallelMin = 1 << 14;  // elements below which one thread is faster

struct Sum {
  double re, im;
};

// conj(a) * b = (ar*br + ai*bi) + (ar*bi - ai*br) i; element i at x[2 * i * incx].
Sum block_dotc(int64_t begin, int64_t end, const double* x, int64_t incx, const double* y, int64_t incy) {
  double re = 0.0, im = 0.0;
  if (incx == 1 && incy == 1) {
#pragma omp simd reduction(+ : re, im)
    for (int64_t i = begin; i < end; ++i) {
      const double xr = x[2 * i], xi = x[2 * i + 1], yr = y[2 * i], yi = y[2 * i + 1];
      re += xr * yr + xi * yi;
      im += xr * yi - xi * yr;
    }
  } else if (incx == -1 && incy == 1) {
#pragma omp simd reduction(+ : re, im)
    for (int64_t i = begin; i < end; ++i) {
      const double xr = x[-2 * i], xi = x[-2 * i + 1], yr = y[2 * i], yi = y[2 * i + 1];
      re += xr * yr + xi * yi;
      im += xr * yi - xi * yr;
    }
  } else {
    for (int64_t i = begin; i < end; ++i) {
      const double xr = x[2 * i * incx], xi = x[2 * i * incx + 1], yr = y[2 * i * incy], yi = y[2 * i * incy + 1];
      re += xr * yr + xi * yi;
      im += xr * yi - xi * yr;
    }
  }
  return {re, im};
}

}  // namespace

extern "C" int kgb_blas_zdotc(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_C128 || y->dtype != KGB_C128 || result->dtype != KGB_C128) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const double* xp = static_cast<const double*>(x->data);
  const double* yp = static_cast<const double*>(y->data);
  const int64_t blocks = n > 0 ? (n + kBlock - 1) / kBlock : 0;
  std::vector<Sum> partial(static_cast<size_t>(blocks));
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
    partial[static_cast<size_t>(b)] = block_dotc(b * kBlock, end, xp, incx, yp, incy);
  }
  double re = 0.0, im = 0.0;
  for (const Sum& p : partial) {
    re += p.re;
    im += p.im;
  }
  double* out = static_cast<double*>(result->data);
  out[0] = re;
  out[1] = im;
  return KGB_OK;
}
