// blas/ssyrk in OpenCL: the uplo triangle of C becomes
// alpha * op(A) op(A)^T + beta * C, column-major, in float.
//
// One 16 x 16 work-group per 32 x 32 tile of C on or inside the triangle
// (the range covers only those tiles: tile t of nb (nb + 1) / 2 is found from
// the group index), each work-item a 2 x 2 register tile. 16-deep slices of
// the two row panels of op(A) a tile needs are staged in local memory; op()
// only swaps the strides used to read A. Diagonal tiles store only their
// triangle. beta == 0 never reads C; alpha == 0 or k == 0 only scale the
// triangle, never reading A.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 16;
constexpr cl_long kTile = 32;

const char kSource[] = R"CLC(
#define TILE 32
#define BK 16
#define G 16

__kernel __attribute__((reqd_work_group_size(G, G, 1)))
void ssyrk(__global float* c, long c_off, __global const float* a, long a_off, long N, long K, long si, long sl,
           long cs0, long cs1, float alpha, float beta, int upper) {
  __local float As[BK][TILE + 1];
  __local float Bs[BK][TILE + 1];
  long t = get_group_id(0);
  long r = (long)((sqrt(8.0f * (float)t + 1.0f) - 1.0f) * 0.5f);
  while (r * (r + 1) / 2 > t) --r;
  while ((r + 1) * (r + 2) / 2 <= t) ++r;
  long cb = t - r * (r + 1) / 2;
  long i0 = (upper ? cb : r) * TILE, j0 = (upper ? r : cb) * TILE;
  int lx = get_local_id(0), ly = get_local_id(1), lid = ly * G + lx;
  float acc00 = 0.0f, acc01 = 0.0f, acc10 = 0.0f, acc11 = 0.0f;
  for (long l0 = 0; l0 < K; l0 += BK) {
    for (int e = lid; e < BK * TILE; e += G * G) {
      int kk = e / TILE, mm = e - kk * TILE;
      long l = l0 + kk, ri = i0 + mm, rj = j0 + mm;
      As[kk][mm] = (l < K && ri < N) ? a[a_off + ri * si + l * sl] : 0.0f;
      Bs[kk][mm] = (l < K && rj < N) ? a[a_off + rj * si + l * sl] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < BK; ++kk) {
      float x0 = As[kk][lx], x1 = As[kk][lx + G], y0 = Bs[kk][ly], y1 = Bs[kk][ly + G];
      acc00 = fma(x0, y0, acc00);
      acc01 = fma(x0, y1, acc01);
      acc10 = fma(x1, y0, acc10);
      acc11 = fma(x1, y1, acc11);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float acc[2][2] = {{acc00, acc01}, {acc10, acc11}};
  for (int a2 = 0; a2 < 2; ++a2)
    for (int b2 = 0; b2 < 2; ++b2) {
      long i = i0 + lx + a2 * G, j = j0 + ly + b2 * G;
      if (i >= N || j >= N || (upper ? i > j : i < j)) continue;
      __global float* out = c + c_off + i * cs0 + j * cs1;
      *out = beta == 0.0f ? alpha * acc[a2][b2] : fma(beta, *out, alpha * acc[a2][b2]);
    }
}

__kernel void scale_triangle(__global float* c, long c_off, long N, long cs0, long cs1, float beta, int upper) {
  long i = get_global_id(0), j = get_global_id(1);
  if (i >= N || (upper ? i > j : i < j)) return;
  __global float* out = c + c_off + i * cs0 + j * cs1;
  *out = beta == 0.0f ? 0.0f : beta * *out;
}
)CLC";

}  // namespace

extern "C" int kgb_blas_ssyrk(int uplo, int trans, double alpha, const kgb_tensor* A, double beta, kgb_tensor* C,
                              kgb_stream stream) {
  if (A->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || C->rank != 2 || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2) return KGB_ERR_INVALID;
  const bool t = trans != 0;
  const cl_long N = C->sizes[0], K = t ? A->sizes[0] : A->sizes[1];
  if (C->sizes[1] != N || (t ? A->sizes[1] : A->sizes[0]) != N) return KGB_ERR_INVALID;
  if (N == 0) return KGB_OK;
  const cl_float fa = static_cast<cl_float>(alpha), fb = static_cast<cl_float>(beta);
  const cl_int upper = uplo == 1;
  cl_kernel k = nullptr;
  cl_int err = CL_SUCCESS;
  if (fa == 0.0f || K == 0) {  // A is not read
    if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "scale_triangle", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
    err |= kgb_cl_set_tensor_arg(stream, k, 0, C);
    const cl_long values[] = {N, C->strides[0], C->strides[1]};
    for (cl_uint i = 0; i < 3; ++i) err |= clSetKernelArg(k, 2 + i, sizeof(cl_long), &values[i]);
    err |= clSetKernelArg(k, 5, sizeof fb, &fb);
    err |= clSetKernelArg(k, 6, sizeof upper, &upper);
    if (err != CL_SUCCESS) return KGB_ERR_INVALID;
    const size_t global[2] = {(static_cast<size_t>(N) + 15) / 16 * 16, static_cast<size_t>(N)};
    const size_t local[2] = {16, 1};
    return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "ssyrk", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  err |= kgb_cl_set_tensor_arg(stream, k, 0, C);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, A);
  const cl_long values[] = {N, K, t ? A->strides[1] : A->strides[0], t ? A->strides[0] : A->strides[1], C->strides[0],
                            C->strides[1]};
  for (cl_uint i = 0; i < 6; ++i) err |= clSetKernelArg(k, 4 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 10, sizeof fa, &fa);
  err |= clSetKernelArg(k, 11, sizeof fb, &fb);
  err |= clSetKernelArg(k, 12, sizeof upper, &upper);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t nb = static_cast<size_t>((N + kTile - 1) / kTile), tiles = nb * (nb + 1) / 2;
  const size_t global[2] = {tiles * kGroup, kGroup}, local[2] = {kGroup, kGroup};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
