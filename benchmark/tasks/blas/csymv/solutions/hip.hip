// blas/csymv in HIP (a port of the CUDA solution): y := alpha * A * x + beta * y, A complex
// symmetric (no conjugation) from its `uplo` triangle (LOWER = 0: i >= j,
// UPPER = 1: i <= j), column-major, float2 = (re, im).
//
// A block of 32 x 8 threads owns 32 rows of y and sweeps the columns in
// 32 x 32 tiles of S (the full symmetric matrix). A tile inside the stored
// triangle is read as it is stored, a tile outside it is read from its mirror
// A(j, i) and transposed through shared memory; both reads walk the unit-
// stride index, so each row of loads is one coalesced 256-byte run (the
// diagonal tile picks per element). The next tile's loads are issued into
// registers before the current tile is multiplied, so global latency hides
// behind the FMAs. Each thread (r, c) accumulates row r over columns
// c, c + 8, ...; the eight partial sums of a row are added in a fixed order
// at the end, so the result is bitwise reproducible (no atomics). The
// unreferenced triangle is never read. beta == 0 never reads y; alpha == 0
// reads neither A nor x.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kTile = 32;
constexpr int kRowsY = 8;                 // threadIdx.y extent
constexpr int kLoads = kTile / kRowsY;    // tile elements each thread loads

struct Params {
  int64_t n;
  bool lower;
  float2 alpha, beta;
  bool use_a, read_y;
  const float2* a;
  int64_t lda;
  const float2* x;
  int64_t incx;
  float2* y;
  int64_t incy;
};

__device__ __forceinline__ float2 cfma(float2 p, float2 q, float2 acc) {
  acc.x = fmaf(p.x, q.x, fmaf(-p.y, q.y, acc.x));
  acc.y = fmaf(p.x, q.y, fmaf(p.y, q.x, acc.y));
  return acc;
}

// The kLoads elements of tile (i0, j0) this thread loads; slot k holds
// S(i0 + r, j0 + c) for (r, c) = (tx, ty + 8k) in a stored tile and
// (ty + 8k, tx) in a mirrored one (see store_tile).
__device__ __forceinline__ void load_tile(const Params& p, int64_t i0, int64_t j0, float2 (&v)[kLoads]) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool diagonal = i0 == j0;
  const bool stored = p.lower ? j0 < i0 : j0 > i0;
#pragma unroll
  for (int k = 0; k < kLoads; ++k) {
    const int c = ty + k * kRowsY;
    int64_t row, col;  // storage position of the element
    if (diagonal) {
      const bool in = p.lower ? tx >= c : tx <= c;  // S(i0 + tx, j0 + c)
      row = in ? i0 + tx : j0 + c;
      col = in ? j0 + c : i0 + tx;
    } else if (stored) {
      row = i0 + tx;  // S(i0 + tx, j0 + c) = A(i0 + tx, j0 + c)
      col = j0 + c;
    } else {
      row = j0 + tx;  // S(i0 + c, j0 + tx) = A(j0 + tx, i0 + c)
      col = i0 + c;
    }
    v[k] = (row < p.n && col < p.n) ? __ldg(p.a + row + col * p.lda) : make_float2(0.0f, 0.0f);
  }
}

__device__ __forceinline__ void store_tile(bool mirrored, float2 (&t)[kTile][kTile + 1], const float2 (&v)[kLoads]) {
  const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int k = 0; k < kLoads; ++k) {
    const int c = ty + k * kRowsY;
    if (mirrored)
      t[c][tx] = v[k];
    else
      t[tx][c] = v[k];
  }
}

__global__ void __launch_bounds__(kTile * kRowsY) csymv_rows(Params p) {
  __shared__ float2 tile[kTile][kTile + 1];  // tile[r][c] = S(i0 + r, j0 + c)
  __shared__ float2 xs[kTile];
  __shared__ float2 part[kRowsY][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t i0 = static_cast<int64_t>(blockIdx.x) * kTile;
  float2 acc = make_float2(0.0f, 0.0f);
  if (p.use_a) {
    float2 v[kLoads];
    load_tile(p, i0, 0, v);
    for (int64_t j0 = 0; j0 < p.n; j0 += kTile) {
      const bool mirrored = j0 != i0 && (p.lower ? j0 > i0 : j0 < i0);
      store_tile(mirrored, tile, v);
      if (ty == 0) xs[tx] = j0 + tx < p.n ? __ldg(p.x + (j0 + tx) * p.incx) : make_float2(0.0f, 0.0f);
      __syncthreads();
      if (j0 + kTile < p.n) load_tile(p, i0, j0 + kTile, v);  // in flight during the FMAs below
#pragma unroll
      for (int k = 0; k < kLoads; ++k) {
        const int c = ty + k * kRowsY;
        acc = cfma(tile[tx][c], xs[c], acc);
      }
      __syncthreads();
    }
  }
  part[ty][tx] = acc;
  __syncthreads();
  const int64_t i = i0 + tx;
  if (ty != 0 || i >= p.n) return;
  float2 sum = part[0][tx];
#pragma unroll
  for (int r = 1; r < kRowsY; ++r) {
    sum.x += part[r][tx].x;
    sum.y += part[r][tx].y;
  }
  float2 out = make_float2(p.alpha.x * sum.x - p.alpha.y * sum.y, p.alpha.x * sum.y + p.alpha.y * sum.x);
  float2* yi = p.y + i * p.incy;
  if (p.read_y) out = cfma(p.beta, *yi, out);
  *yi = out;
}

}  // namespace

extern "C" int kgb_blas_csymv(int uplo, kgb_complex alpha, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta, kgb_tensor* y,
                              kgb_stream stream) {
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || y->rank != 1 || (uplo != 0 && uplo != 1)) return KGB_ERR_INVALID;
  Params p{};
  p.n = A->sizes[0];
  if (A->sizes[1] != p.n || x->sizes[0] != p.n || y->sizes[0] != p.n) return KGB_ERR_INVALID;
  if (p.n == 0) return KGB_OK;
  p.lower = uplo == 0;
  p.alpha = make_float2(static_cast<float>(alpha.re), static_cast<float>(alpha.im));
  p.beta = make_float2(static_cast<float>(beta.re), static_cast<float>(beta.im));
  p.use_a = p.alpha.x != 0.0f || p.alpha.y != 0.0f;  // BLAS: alpha == 0 reads neither A nor x
  p.read_y = p.beta.x != 0.0f || p.beta.y != 0.0f;   // beta == 0 never reads y
  p.a = static_cast<const float2*>(A->data);
  p.lda = p.n > 1 ? A->strides[1] : 1;
  p.x = static_cast<const float2*>(x->data);
  p.incx = x->strides[0];
  p.y = static_cast<float2*>(y->data);
  p.incy = y->strides[0];
  const dim3 grid(static_cast<unsigned>((p.n + kTile - 1) / kTile)), block(kTile, kRowsY);
  hipLaunchKernelGGL(csymv_rows, grid, block, 0, static_cast<hipStream_t>(stream), p);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
