// blas/dasum on the CPU: result[0] = sum of |x[i*incx]| for incx > 0; 0 for
// incx <= 0 or n == 0 (BLAS).
//
// Memory bound. The index range is cut into fixed blocks, each summed with a
// SIMD reduction (unit increment) or a strided loop; blocks are spread over
// OpenMP threads, their sums stored per block and added serially in block
// order, so the result does not depend on the thread count (deterministic).
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kBlock = 1 << 12;
constexpr int64_t kParallelMin = 1 << 16;  // elements below which one thread is faster

double block_asum(int64_t begin, int64_t end, const double* x, int64_t incx) {
  double acc = 0.0;
  if (incx == 1) {
#pragma omp simd reduction(+ : acc)
    for (int64_t i = begin; i < end; ++i) acc += fabs(x[i]);
  } else {
    for (int64_t i = begin; i < end; ++i) acc += fabs(x[i * incx]);
  }
  return acc;
}

}  // namespace

extern "C" int kgb_blas_dasum(const kgb_tensor* x, kgb_tensor* result, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_F64 || result->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1) return KGB_ERR_INVALID;
  const int64_t incx = x->strides[0];
  const int64_t n = incx > 0 ? x->sizes[0] : 0;  // BLAS: incx <= 0 sums nothing
  const double* xp = static_cast<const double*>(x->data);
  const int64_t blocks = n > 0 ? (n + kBlock - 1) / kBlock : 0;
  std::vector<double> partial(static_cast<size_t>(blocks));
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
    partial[static_cast<size_t>(b)] = block_asum(b * kBlock, end, xp, incx);
  }
  double sum = 0.0;
  for (double p : partial) sum += p;
  *static_cast<double*>(result->data) = sum;
  return KGB_OK;
}
