// blas/sscal on the CPU: x[i*incx] *= alpha for incx > 0; incx <= 0 and
// n == 0 do nothing (BLAS).
//
// Memory bound: the index range is split statically over OpenMP threads, so
// each thread streams one contiguous block; unit increments take a multiply
// loop the compiler vectorises, other increments a strided loop. Small
// vectors stay on one thread.
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kParallelMin = 1 << 16;  // elements below which one thread is faster
constexpr int64_t kBlock = 1 << 14;        // elements per scheduling block

inline void scal_range(int64_t begin, int64_t end, float alpha, float* x, int64_t incx) {
  if (incx == 1) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) x[i] *= alpha;
  } else {
    for (int64_t i = begin; i < end; ++i) x[i * incx] *= alpha;
  }
}

}  // namespace

extern "C" int kgb_blas_sscal(double alpha, kgb_tensor* x, kgb_stream stream) {
  (void)stream;
  if (x->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (x->rank != 1) return KGB_ERR_INVALID;
  const int64_t n = x->sizes[0], incx = x->strides[0];
  const float a = static_cast<float>(alpha);
  if (n <= 0 || incx <= 0 || a == 1.0f) return KGB_OK;  // BLAS: nothing to do
  float* xp = static_cast<float*>(x->data);
  if (n < kParallelMin) {
    scal_range(0, n, a, xp, incx);
    return KGB_OK;
  }
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
    scal_range(b * kBlock, end, a, xp, incx);
  }
  return KGB_OK;
}
