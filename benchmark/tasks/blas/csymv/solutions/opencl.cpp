// blas/csymv in OpenCL: y := alpha * A * x + beta * y, A complex symmetric
// (no conjugation) from its `uplo` triangle (LOWER = 0: i >= j, UPPER = 1:
// i <= j), column-major, float2 = (re, im).
//
// A 32 x 8 work-group owns 32 rows of y and sweeps the columns in 32 x 32
// tiles of S (the full symmetric matrix), staged in local memory: a tile
// inside the stored triangle is read as stored, a tile outside it from its
// mirror A(j, i) and transposed while staging, so neighbouring work-items
// always read neighbouring elements (the diagonal tile picks per element).
// Work-item (r, c) accumulates row r over columns c, c + 8, ...; the eight
// partial sums of a row are added in a fixed order, so the result is the
// same every run. The unreferenced triangle is never read. beta == 0 never
// reads y; alpha == 0 reads neither A nor x.
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#define TILE 32
#define RY 8
float2 cfma(float2 p, float2 q, float2 acc) {
  acc.x = fma(p.x, q.x, fma(-p.y, q.y, acc.x));
  acc.y = fma(p.x, q.y, fma(p.y, q.x, acc.y));
  return acc;
}
__kernel __attribute__((reqd_work_group_size(TILE, RY, 1)))
void csymv(long n, int lower, float2 alpha, float2 beta, int use_a, int read_y, __global const float2* a, long a_off, long lda,
           __global const float2* x, long x_off, long incx, __global float2* y, long y_off, long incy) {
  __local float2 tile[TILE][TILE + 1];  /* tile[r][c] = S(i0 + r, j0 + c) */
  __local float2 xs[TILE];
  __local float2 part[RY][TILE];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const long i0 = (long)get_group_id(0) * TILE;
  __global const float2* ap = a + a_off;
  float2 acc = (float2)(0.0f, 0.0f);
  if (use_a) {
    for (long j0 = 0; j0 < n; j0 += TILE) {
      const int diagonal = i0 == j0, stored = lower ? j0 < i0 : j0 > i0;
      for (int c = ty; c < TILE; c += RY) {
        long row, col;
        if (diagonal) {
          const int in = lower ? tx >= c : tx <= c;
          row = in ? i0 + tx : j0 + c;
          col = in ? j0 + c : i0 + tx;
        } else if (stored) {
          row = i0 + tx;
          col = j0 + c;
        } else {
          row = j0 + tx;
          col = i0 + c;
        }
        const float2 v = (row < n && col < n) ? ap[row + col * lda] : (float2)(0.0f, 0.0f);
        if (diagonal || stored) tile[tx][c] = v; else tile[c][tx] = v;
      }
      if (ty == 0) xs[tx] = j0 + tx < n ? x[x_off + (j0 + tx) * incx] : (float2)(0.0f, 0.0f);
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int c = ty; c < TILE; c += RY) acc = cfma(tile[tx][c], xs[c], acc);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  part[ty][tx] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  const long i = i0 + tx;
  if (ty != 0 || i >= n) return;
  float2 sum = part[0][tx];
  for (int r = 1; r < RY; ++r) sum += part[r][tx];
  float2 out = (float2)(alpha.x * sum.x - alpha.y * sum.y, alpha.x * sum.y + alpha.y * sum.x);
  __global float2* yi = y + y_off + i * incy;
  if (read_y) out = cfma(beta, *yi, out);
  *yi = out;
}
)CLC";

constexpr size_t kTile = 32, kRowsY = 8;

}  // namespace

extern "C" int kgb_blas_csymv(int uplo, kgb_complex alpha, const kgb_tensor* A, const kgb_tensor* x, kgb_complex beta, kgb_tensor* y,
                              kgb_stream stream) {
  if (A->dtype != KGB_C64 || x->dtype != KGB_C64 || y->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || x->rank != 1 || y->rank != 1 || (uplo != 0 && uplo != 1)) return KGB_ERR_INVALID;
  const cl_long n = A->sizes[0];
  if (A->sizes[1] != n || x->sizes[0] != n || y->sizes[0] != n) return KGB_ERR_INVALID;
  if (n == 0) return KGB_OK;
  const cl_float2 al = {{static_cast<float>(alpha.re), static_cast<float>(alpha.im)}};
  const cl_float2 be = {{static_cast<float>(beta.re), static_cast<float>(beta.im)}};
  const cl_int lower = uplo == 0;
  const cl_int use_a = al.s[0] != 0.0f || al.s[1] != 0.0f;  // BLAS: alpha == 0 reads neither A nor x
  const cl_int read_y = be.s[0] != 0.0f || be.s[1] != 0.0f;  // beta == 0 never reads y
  const cl_long lda = n > 1 ? A->strides[1] : 1, incx = x->strides[0], incy = y->strides[0];
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "csymv", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= clSetKernelArg(k, 1, sizeof lower, &lower);
  err |= clSetKernelArg(k, 2, sizeof al, &al);
  err |= clSetKernelArg(k, 3, sizeof be, &be);
  err |= clSetKernelArg(k, 4, sizeof use_a, &use_a);
  err |= clSetKernelArg(k, 5, sizeof read_y, &read_y);
  err |= kgb_cl_set_tensor_arg(stream, k, 6, A);  // arguments 6, 7
  err |= clSetKernelArg(k, 8, sizeof lda, &lda);
  err |= kgb_cl_set_tensor_arg(stream, k, 9, x);  // arguments 9, 10
  err |= clSetKernelArg(k, 11, sizeof incx, &incx);
  err |= kgb_cl_set_tensor_arg(stream, k, 12, y);  // arguments 12, 13
  err |= clSetKernelArg(k, 14, sizeof incy, &incy);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t global[2] = {(static_cast<size_t>(n) + kTile - 1) / kTile * kTile, kRowsY};
  const size_t local[2] = {kTile, kRowsY};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
