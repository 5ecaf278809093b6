// blas/sgemm in OpenCL (column-major, cuBLAS semantics):
// C := alpha * op(A) op(B) + beta * C.
// A 16 x 16 tiled product in local memory; op() only swaps the strides used to
// read A and B, so every transposition runs the same kernel. Range dimension
// 0 follows C's row index (contiguous in column-major storage). beta == 0
// never reads C; alpha == 0 (or k == 0) reads neither A nor B.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kTile = 16;

const char kSource[] = R"CLC(
#define TILE 16

// C(i, j) = alpha * sum over l of A(i, l) B(l, j) + beta * C(i, j).
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void sgemm(__global float* c, long c_off, __global const float* a, long a_off, __global const float* b, long b_off,
           long M, long N, long K, long sai, long sal, long sbl, long sbj, long sci, long scj, float alpha,
           float beta, int read_c) {
  __local float ta[TILE][TILE + 1];  // ta[l][i]
  __local float tb[TILE][TILE + 1];  // tb[j][l]
  int tx = get_local_id(0), ty = get_local_id(1);
  long i0 = (long)get_group_id(0) * TILE, j0 = (long)get_group_id(1) * TILE;
  float acc = 0.0f;
  for (long l0 = 0; l0 < K; l0 += TILE) {
    long ai = i0 + tx, al = l0 + ty;
    ta[ty][tx] = (ai < M && al < K) ? a[a_off + ai * sai + al * sal] : 0.0f;
    long bl = l0 + tx, bj = j0 + ty;
    tb[ty][tx] = (bl < K && bj < N) ? b[b_off + bl * sbl + bj * sbj] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = 0; l < TILE; ++l) acc += ta[l][tx] * tb[ty][l];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  long i = i0 + tx, j = j0 + ty;
  if (i < M && j < N) {
    long at = c_off + i * sci + j * scj;
    float r = alpha * acc;
    if (read_c) r += beta * c[at];
    c[at] = r;
  }
}
)CLC";

}  // namespace

extern "C" int kgb_blas_sgemm(int64_t transa, int64_t transb, double alpha, const kgb_tensor* A, const kgb_tensor* B,
                              double beta, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  cl_long K = transa ? A->sizes[0] : A->sizes[1];
  if ((transa ? A->sizes[1] : A->sizes[0]) != M) return KGB_ERR_INVALID;
  if ((transb ? B->sizes[1] : B->sizes[0]) != K || (transb ? B->sizes[0] : B->sizes[1]) != N) return KGB_ERR_INVALID;
  if (M == 0 || N == 0) return KGB_OK;
  // op(A)(i, l) and op(B)(l, j) as strides of the stored matrices.
  const cl_long sai = transa ? A->strides[1] : A->strides[0], sal = transa ? A->strides[0] : A->strides[1];
  const cl_long sbl = transb ? B->strides[1] : B->strides[0], sbj = transb ? B->strides[0] : B->strides[1];
  const cl_long sci = C->strides[0], scj = C->strides[1];
  const cl_float a = static_cast<cl_float>(alpha), b = static_cast<cl_float>(beta);
  if (a == 0.0f) K = 0;  // BLAS: A and B are not read
  const cl_int read_c = b != 0.0f;

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "sgemm", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, C);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, A);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, B);
  const cl_long values[] = {M, N, K, sai, sal, sbl, sbj, sci, scj};
  for (cl_uint i = 0; i < 9; ++i) err |= clSetKernelArg(k, 6 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 15, sizeof a, &a);
  err |= clSetKernelArg(k, 16, sizeof b, &b);
  err |= clSetKernelArg(k, 17, sizeof read_c, &read_c);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local[2] = {kTile, kTile};
  const size_t global[2] = {(static_cast<size_t>(M) + kTile - 1) / kTile * kTile,
                            (static_cast<size_t>(N) + kTile - 1) / kTile * kTile};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
