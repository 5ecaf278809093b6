// blas/csymv on the CPU: y := alpha * A * x + beta * y, A complex symmetric
// (no conjugation) from its `uplo` triangle (LOWER = 0: i >= j, UPPER = 1:
// i <= j), column-major, single-precision complex (interleaved re, im).
//
// Every stored element is read once: column j of the stored triangle serves
// both as a column of A (acc[i] += A(i, j) * x[j], an axpy) and, mirrored, as
// row j (acc[j] += sum_i A(i, j) * x[i], a dot product), so one unit-stride
// pass over the column feeds two outputs; both loops vectorise. Columns are
// dealt round-robin in chunks of kChunk (static, so the triangle's uneven
// columns balance and the summation order is the same every run) to OpenMP
// threads, each accumulating into its own vector; the partial vectors are
// then summed in thread order and combined with alpha and beta. x is packed
// once (any increment, negative ones included: data[i * inc] is element i).
// beta == 0 never reads y; alpha == 0 reads neither A nor x.
#include <omp.h>
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kChunk = 16;             // columns per round-robin chunk
constexpr int64_t kParallelMin = 1 << 14;  // stored elements below which one thread is faster

// acc(r0:r1) += a(r0:r1) * (xr + i xi) and returns sum a(r0:r1) * x(r0:r1),
// for complex vectors stored interleaved.
inline void column_pass(const float* __restrict a, const float* __restrict xs, float* __restrict acc, float xr, float xi, int64_t count,
                        float* dot_re, float* dot_im) {
  float dr = 0.0f, di = 0.0f;
#pragma omp simd reduction(+ : dr, di)
  for (int64_t i = 0; i < count; ++i) {
    const float ar = a[2 * i], ai = a[2 * i + 1];
    acc[2 * i] += ar * xr - ai * xi;
    acc[2 * i + 1] += ar * xi + ai * xr;
    const float vr = xs[2 * i], vi = xs[2 * i + 1];
    dr += ar * vr - ai * vi;
    di += ar * vi + ai * vr;
  }
  *dot_re = dr;
  *dot_im = di;
}

}  // namespace

extern "C" int kgb_blas_csymv(int uplo, kgb_complex alpha, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta, kgb_tensor* y,
                              kgb_stream stream) {
  (void)stream;
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || y->rank != 1 || (uplo != 0 && uplo != 1)) return KGB_ERR_INVALID;
  const int64_t n = A->sizes[0];
  if (A->sizes[1] != n || x->sizes[0] != n || y->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  const float alr = static_cast<float>(alpha.re), ali = static_cast<float>(alpha.im);
  const float ber = static_cast<float>(beta.re), bei = static_cast<float>(beta.im);
  const bool use_a = alr != 0.0f || ali != 0.0f, read_y = ber != 0.0f || bei != 0.0f;
  float* yp = static_cast<float*>(y->data);
  const int64_t incy = y->strides[0];

  const bool parallel = n * n / 2 >= kParallelMin;
  const int threads = parallel ? omp_get_max_threads() : 1;
  std::vector<float> acc;
  if (use_a) {
    const float* xp = static_cast<const float*>(x->data);
    const int64_t incx = x->strides[0], lda = A->strides[1];
    std::vector<float> xs(static_cast<size_t>(2 * n));
    for (int64_t i = 0; i < n; ++i) {
      xs[static_cast<size_t>(2 * i)] = xp[2 * i * incx];
      xs[static_cast<size_t>(2 * i + 1)] = xp[2 * i * incx + 1];
    }
    acc.assign(static_cast<size_t>(threads) * static_cast<size_t>(2 * n), 0.0f);
    const float* ap = static_cast<const float*>(A->data);
    const bool lower = uplo == 0;
#pragma omp parallel num_threads(threads)
    {
      float* mine = acc.data() + static_cast<size_t>(omp_get_thread_num()) * static_cast<size_t>(2 * n);
#pragma omp for schedule(static, kChunk)
      for (int64_t j = 0; j < n; ++j) {
        const float* col = ap + 2 * j * lda;
        const float xr = xs[static_cast<size_t>(2 * j)], xi = xs[static_cast<size_t>(2 * j + 1)];
        const int64_t r0 = lower ? j + 1 : 0, r1 = lower ? n : j;  // off-diagonal rows of column j
        float dr, di;
        column_pass(col + 2 * r0, xs.data() + 2 * r0, mine + 2 * r0, xr, xi, r1 - r0, &dr, &di);
        const float dgr = col[2 * j], dgi = col[2 * j + 1];
        mine[2 * j] += dr + dgr * xr - dgi * xi;
        mine[2 * j + 1] += di + dgr * xi + dgi * xr;
      }
    }
  }
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t i = 0; i < n; ++i) {
    float sr = 0.0f, si = 0.0f;
    for (int t = 0; t < (use_a ? threads : 0); ++t) {
      sr += acc[static_cast<size_t>(t) * static_cast<size_t>(2 * n) + static_cast<size_t>(2 * i)];
      si += acc[static_cast<size_t>(t) * static_cast<size_t>(2 * n) + static_cast<size_t>(2 * i + 1)];
    }
    float rr = alr * sr - ali * si, ri = alr * si + ali * sr;
    float* out = yp + 2 * i * incy;
    if (read_y) {
      const float yr = out[0], yi = out[1];
      rr += ber * yr - bei * yi;
      ri += ber * yi + bei * yr;
    }
    out[0] = rr;
    out[1] = ri;
  }
  return KGB_OK;
}
