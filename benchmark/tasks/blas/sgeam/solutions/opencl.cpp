// blas/sgeam in OpenCL: C = alpha * op(A) + beta * op(B), column-major.
//
// One work-group of 32 x 8 items owns a 32 x 32 tile of C; range dimension 0
// follows C's row index (contiguous in column-major storage). An operand under
// CUBLAS_OP_T/C is staged through local memory (rows padded to 33 floats), so
// the stored matrix is read along its contiguous columns and C is written
// along its columns: both coalesced. The transposes are compile-time
// constants of four kernel variants. A scale of 0 never reads its operand;
// in place (C == A, transa == N) each item reads the elements it overwrites.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kTile = 32, kRows = 8;

const char kSource[] = R"CLC(
#define TILE 32
#define ROWS 8

__kernel __attribute__((reqd_work_group_size(TILE, ROWS, 1)))
void sgeam(__global float* c, long c_off, __global const float* a, long a_off, __global const float* b, long b_off,
           long M, long N, long as0, long as1, long bs0, long bs1, long cs0, long cs1, float alpha, float beta) {
  __local float ta[TILE][TILE + 1];
  __local float tb[TILE][TILE + 1];
  int tx = get_local_id(0), ty = get_local_id(1);
  long i0 = (long)get_group_id(0) * TILE, j0 = (long)get_group_id(1) * TILE;
  int use_a = alpha != 0.0f, use_b = beta != 0.0f;
#if TRANS_A
  if (use_a)
    for (int r = ty; r < TILE; r += ROWS) {
      long i = i0 + r, j = j0 + tx;  /* op(A)(i, j) = A(j, i) */
      ta[r][tx] = (i < M && j < N) ? a[a_off + j * as0 + i * as1] : 0.0f;
    }
#endif
#if TRANS_B
  if (use_b)
    for (int r = ty; r < TILE; r += ROWS) {
      long i = i0 + r, j = j0 + tx;
      tb[r][tx] = (i < M && j < N) ? b[b_off + j * bs0 + i * bs1] : 0.0f;
    }
#endif
#if TRANS_A || TRANS_B
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  long i = i0 + tx;
  if (i >= M) return;
  for (int r = ty; r < TILE; r += ROWS) {
    long j = j0 + r;
    if (j >= N) break;
    float v = 0.0f;
#if TRANS_A
    if (use_a) v = alpha * ta[tx][r];
#else
    if (use_a) v = alpha * a[a_off + i * as0 + j * as1];
#endif
#if TRANS_B
    if (use_b) v += beta * tb[tx][r];
#else
    if (use_b) v += beta * b[b_off + i * bs0 + j * bs1];
#endif
    c[c_off + i * cs0 + j * cs1] = v;
  }
}
)CLC";

}  // namespace

extern "C" int kgb_blas_sgeam(int transa, int transb, double alpha, const kgb_tensor* A, double beta, const kgb_tensor* B,
                              kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  if ((ta ? A->sizes[1] : A->sizes[0]) != M || (ta ? A->sizes[0] : A->sizes[1]) != N ||
      (tb ? B->sizes[1] : B->sizes[0]) != M || (tb ? B->sizes[0] : B->sizes[1]) != N)
    return KGB_ERR_INVALID;
  if (M == 0 || N == 0) return KGB_OK;
  static const char* const kOptions[4] = {"-cl-std=CL1.2 -DTRANS_A=0 -DTRANS_B=0", "-cl-std=CL1.2 -DTRANS_A=0 -DTRANS_B=1",
                                          "-cl-std=CL1.2 -DTRANS_A=1 -DTRANS_B=0", "-cl-std=CL1.2 -DTRANS_A=1 -DTRANS_B=1"};
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, kOptions[(ta ? 2 : 0) + (tb ? 1 : 0)], "sgeam", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, C);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, A);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, B);
  const cl_long values[] = {M, N, A->strides[0], A->strides[1], B->strides[0], B->strides[1], C->strides[0], C->strides[1]};
  for (cl_uint i = 0; i < 8; ++i) err |= clSetKernelArg(k, 6 + i, sizeof(cl_long), &values[i]);
  const cl_float fa = static_cast<cl_float>(alpha), fb = static_cast<cl_float>(beta);
  err |= clSetKernelArg(k, 14, sizeof fa, &fa);
  err |= clSetKernelArg(k, 15, sizeof fb, &fb);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local[2] = {kTile, kRows};
  const size_t global[2] = {(static_cast<size_t>(M) + kTile - 1) / kTile * kTile,
                            (static_cast<size_t>(N) + kTile - 1) / kTile * kRows};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
