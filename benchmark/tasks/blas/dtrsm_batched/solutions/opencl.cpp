// blas/dtrsm_batched in OpenCL: for every item b, B[b] := X with
// op(A[b]) X = alpha B[b] (LEFT) or X op(A[b]) = alpha B[b] (RIGHT),
// column-major, in double (devices with fp64 only).
//
// The items of each list share one buffer on OpenCL, at offsets the harness
// keeps in a device buffer (kgb_cl_tensor_list_buffers): range dimension 1 is
// the item, whose offsets[b] the kernel reads instead of a pointer. Every item
// is one forward substitution L Y = alpha R with a lower-triangular L: for
// RIGHT the right-hand sides are the rows of B and the matrix is op(A)^T, and
// an upper-triangular matrix is walked in reverse index order. L(i, l) is read
// from the stored triangle of A through index arithmetic (the other triangle,
// and the diagonal under CUBLAS_DIAG_UNIT, are never read).
//
// One 32 x 8 work-group owns a panel of 32 right-hand sides of one item and
// walks the rows in blocks of 32: it subtracts the contribution of the rows
// already solved (32 x 32 tiles of L and of the solved rows staged in local
// memory, 4 rows per work-item in registers), solves the 32 x 32 diagonal
// triangle in local memory (one work-item per right-hand side) and writes the
// rows back to B[b] for the next row blocks.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define Q 32
#define ROWS 8
#define RB 32
#define PER 4

long flip(long i, long d, int reversed) { return reversed ? d - 1 - i : i; }

__kernel __attribute__((reqd_work_group_size(Q, ROWS, 1)))
void dtrsm_batched(__global double* b, __global const long* b_offsets, __global const double* a,
                   __global const long* a_offsets, long d, long rhs, long ti, long tl, long sp, long sq, int reversed,
                   int unit, double alpha) {
  __local double Ls[RB][RB + 1];
  __local double Xs[RB][Q + 1];
  __local double inv_diag[RB];
  long item = get_group_id(1), b_off = b_offsets[item], a_off = a_offsets[item];
  int tx = get_local_id(0), ty = get_local_id(1), tid = ty * Q + tx;
  long q0 = (long)get_group_id(0) * Q, q = q0 + tx;
  int active = q < rhs;
  __global double* bq = b + b_off + (active ? q : 0) * sq;
  __global const double* ab = a + a_off;
  for (long i0 = 0; i0 < d; i0 += RB) {
    double acc[PER];
    for (int u = 0; u < PER; ++u) {
      long i = i0 + ty + u * ROWS;
      acc[u] = (active && i < d) ? alpha * bq[flip(i, d, reversed) * sp] : 0.0;
    }
    for (long l0 = 0; l0 < i0; l0 += RB) {
      for (int e = tid; e < RB * RB; e += Q * ROWS) {
        int r = e / RB, c = e % RB;
        long i = i0 + r;
        Ls[r][c] = i < d ? ab[flip(i, d, reversed) * ti + flip(l0 + c, d, reversed) * tl] : 0.0;
      }
      for (int e = tid; e < RB * Q; e += Q * ROWS) {
        int c = e / Q, qq = e % Q;
        long qg = q0 + qq;
        Xs[c][qq] = qg < rhs ? b[b_off + flip(l0 + c, d, reversed) * sp + qg * sq] : 0.0;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int c = 0; c < RB; ++c) {
        double x = Xs[c][tx];
        for (int u = 0; u < PER; ++u) acc[u] = fma(-Ls[ty + u * ROWS][c], x, acc[u]);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    int rows_here = (int)(d - i0 < RB ? d - i0 : RB);
    for (int e = tid; e < RB * RB; e += Q * ROWS) {
      int r = e / RB, c = e % RB;
      Ls[r][c] = (r < rows_here && c < r) ? ab[flip(i0 + r, d, reversed) * ti + flip(i0 + c, d, reversed) * tl] : 0.0;
    }
    if (tid < rows_here) {
      long ii = flip(i0 + tid, d, reversed);
      inv_diag[tid] = unit ? 1.0 : 1.0 / ab[ii * ti + ii * tl];
    }
    for (int u = 0; u < PER; ++u) Xs[ty + u * ROWS][tx] = acc[u];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The triangle itself: one work-item per right-hand side, no barrier
       inside the loop (PoCL compiles barriers in loops slowly). */
    if (ty == 0)
      for (int s = 0; s < rows_here; ++s) {
        double xs = Xs[s][tx] * inv_diag[s];
        Xs[s][tx] = xs;
        for (int r = s + 1; r < rows_here; ++r) Xs[r][tx] = fma(-Ls[r][s], xs, Xs[r][tx]);
      }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int u = 0; u < PER; ++u) {
      int r = ty + u * ROWS;
      if (active && r < rows_here) bq[flip(i0 + r, d, reversed) * sp] = Xs[r][tx];
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  }
}

__kernel void zero_items(__global double* b, __global const long* b_offsets, long m, long bs0, long bs1) {
  long i = get_global_id(0), j = get_global_id(1), item = get_global_id(2);
  if (i < m) b[b_offsets[item] + i * bs0 + j * bs1] = 0.0;
}
)CLC";

}  // namespace

extern "C" int kgb_blas_dtrsm_batched(int side, int uplo, int trans, int diag, double alpha, const kgb_tensor_list* Aarray,
                                      kgb_tensor_list* Barray, kgb_stream stream) {
  if ((side != 0 && side != 1) || (uplo != 0 && uplo != 1) || trans < 0 || trans > 2 || (diag != 0 && diag != 1))
    return KGB_ERR_INVALID;
  const cl_long batch = Barray->count;
  if (Aarray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A = Aarray->items[0];  // every item shares sizes and strides
  const kgb_tensor* B = Barray->items[0];
  if (A->dtype != KGB_F64 || B->dtype != KGB_F64 || A->rank != 2 || B->rank != 2) return KGB_ERR_UNSUPPORTED;
  const bool left = side == 0;
  const cl_long m = B->sizes[0], n = B->sizes[1], d = left ? m : n, rhs = left ? n : m;
  if (A->sizes[0] != d || A->sizes[1] != d) return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  cl_mem a_buf = nullptr, a_off = nullptr, b_buf = nullptr, b_off = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, Aarray, &a_buf, &a_off) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, Barray, &b_buf, &b_off) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_kernel k = nullptr;
  cl_int err = CL_SUCCESS;
  if (alpha == 0.0) {  // every B[b] = 0, A not read
    if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "zero_items", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
    err |= clSetKernelArg(k, 0, sizeof b_buf, &b_buf);
    err |= clSetKernelArg(k, 1, sizeof b_off, &b_off);
    const cl_long values[] = {m, B->strides[0], B->strides[1]};
    for (cl_uint i = 0; i < 3; ++i) err |= clSetKernelArg(k, 2 + i, sizeof(cl_long), &values[i]);
    if (err != CL_SUCCESS) return KGB_ERR_INVALID;
    const size_t global[3] = {(static_cast<size_t>(m) + 15) / 16 * 16, static_cast<size_t>(n), static_cast<size_t>(batch)};
    const size_t local[3] = {16, 1, 1};
    return kgb_cl_enqueue(stream, k, 3, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }
  const bool t_transposed = (trans != 0) != !left;  // T = op(A) (LEFT) or op(A)^T (RIGHT)
  const cl_int reversed = (uplo == 0) == t_transposed, unit = diag == 1;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "dtrsm_batched", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  err |= clSetKernelArg(k, 0, sizeof b_buf, &b_buf);
  err |= clSetKernelArg(k, 1, sizeof b_off, &b_off);
  err |= clSetKernelArg(k, 2, sizeof a_buf, &a_buf);
  err |= clSetKernelArg(k, 3, sizeof a_off, &a_off);
  const cl_long values[] = {d, rhs, t_transposed ? A->strides[1] : A->strides[0], t_transposed ? A->strides[0] : A->strides[1],
                            left ? B->strides[0] : B->strides[1], left ? B->strides[1] : B->strides[0]};
  for (cl_uint i = 0; i < 6; ++i) err |= clSetKernelArg(k, 4 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 10, sizeof reversed, &reversed);
  err |= clSetKernelArg(k, 11, sizeof unit, &unit);
  err |= clSetKernelArg(k, 12, sizeof alpha, &alpha);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t global[2] = {static_cast<size_t>((rhs + 31) / 32) * 32, static_cast<size_t>(batch) * 8}, local[2] = {32, 8};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
