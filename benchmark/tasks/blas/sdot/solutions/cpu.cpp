// blas/sdot on the CPU: result[0] = sum of x[i*incx] * y[i*incy].
//
// Memory bound. The index range is cut into fixed blocks; each block is summed
// in float with a SIMD reduction (unit increments, and a reversed x with unit
// y, vectorise; other increments take a strided loop), and the block sums are
// added in double in block order. The blocks are spread over OpenMP threads,
// but the per-block sums land in an array and are added serially, so the
// result does not depend on the thread count or schedule (deterministic), and
// blocking keeps the float error small.
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kBlock = 1 << 12;         // elements summed in float
constexpr int64_t kParallelMin = 1 << 16;  // elements below which one thread is faster

float block_dot(int64_t begin, int64_t end, const float* x, int64_t incx, const float* y, int64_t incy) {
  float acc = 0.0f;
  if (incx == 1 && incy == 1) {
#pragma omp simd reduction(+ : acc)
    for (int64_t i = begin; i < end; ++i) acc += x[i] * y[i];
  } else if (incx == -1 && incy == 1) {
#pragma omp simd reduction(+ : acc)
    for (int64_t i = begin; i < end; ++i) acc += x[-i] * y[i];
  } else {
    for (int64_t i = begin; i < end; ++i) acc += x[i * incx] * y[i * incy];
  }
  return acc;
}

}  // namespace

extern "C" int kgb_blas_sdot(const kgb_tensor* x, const kgb_tensor* y, kgb_tensor* result, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_F32 || y->dtype != KGB_F32 || result->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1 || y->rank != 1 || x->sizes[0] != y->sizes[0]) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0], incx = x->strides[0], incy = y->strides[0];
  const float* xp = static_cast<const float*>(x->data);
  const float* yp = static_cast<const float*>(y->data);
  const int64_t blocks = n > 0 ? (n + kBlock - 1) / kBlock : 0;
  std::vector<float> partial(static_cast<size_t>(blocks));
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
    partial[static_cast<size_t>(b)] = block_dot(b * kBlock, end, xp, incx, yp, incy);
  }
  double sum = 0.0;
  for (float p : partial) sum += p;
  *static_cast<float*>(result->data) = static_cast<float>(sum);
  return KGB_OK;
}
