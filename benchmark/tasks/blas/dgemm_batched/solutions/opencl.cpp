// blas/dgemm_batched in OpenCL (column-major, cuBLAS semantics): for every
// item b, C[b] := alpha * op(A[b]) op(B[b]) + beta * C[b] in double.
//
// The items of each list share one buffer on OpenCL, at offsets the harness
// keeps in a device buffer (kgb_cl_tensor_list_buffers): the kernel reads
// offsets[b] for its item instead of a pointer. One 3-D range covers the whole
// batch: dimensions 0 and 1 tile C[b] (BM x BN blocks, BM = 16 * RM rows,
// BN = 16 * RN columns), dimension 2 is the item. A 16 x 16 work-group stages
// BK-deep slices of op(A) and op(B) in local memory, reading along whichever
// index has unit stride so neighbouring work-items read neighbouring
// doubles, and each work-item accumulates an RM x RN register tile. op() only
// swaps the strides (op C of a real matrix is its transpose). Small matrices
// take 32 x 32 tiles, larger ones 64 x 64. beta == 0 never reads C;
// alpha == 0 (or k == 0) reads neither A nor B.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kThreads = 16;       // work-group is kThreads x kThreads
constexpr int64_t kMaxGroupsZ = 65535;  // items per launch (grid z limit of some devices)

const char kSource[] = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define T 16
#ifndef RM  /* register tile, set by the build options (defaults for tools that parse the source alone) */
#define RM 4
#endif
#ifndef RN
#define RN 4
#endif
#define BM (T * RM)
#define BN (T * RN)
#define BK 16

__kernel __attribute__((reqd_work_group_size(T, T, 1)))
void dgemm_batched(__global double* c, __global const long* c_off, __global const double* a, __global const long* a_off,
                   __global const double* b, __global const long* b_off, long item_base, long M, long N, long K,
                   long sai, long sal, long sbl, long sbj, long sci, long scj, double alpha, double beta, int read_c) {
  __local double As[BK][BM + 1];  // As[l][i] = op(A)(i0 + i, l0 + l)
  __local double Bs[BK][BN + 1];  // Bs[l][j] = op(B)(l0 + l, j0 + j)
  const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * T + tx;
  const long item = item_base + get_group_id(2);
  const long i0 = (long)get_group_id(0) * BM, j0 = (long)get_group_id(1) * BN;
  __global const double* ap = a + a_off[item];
  __global const double* bp = b + b_off[item];
  double acc[RM][RN];
  for (int r = 0; r < RM; ++r)
    for (int s = 0; s < RN; ++s) acc[r][s] = 0.0;

  for (long l0 = 0; l0 < K; l0 += BK) {
    for (int e = tid; e < BK * BM; e += T * T) {
      const int l = sai == 1 ? e / BM : e % BK, i = sai == 1 ? e % BM : e / BK;
      const long gi = i0 + i, gl = l0 + l;
      As[l][i] = (gi < M && gl < K) ? ap[gi * sai + gl * sal] : 0.0;
    }
    for (int e = tid; e < BK * BN; e += T * T) {
      const int l = sbl == 1 ? e % BK : e / BN, j = sbl == 1 ? e / BK : e % BN;
      const long gl = l0 + l, gj = j0 + j;
      Bs[l][j] = (gl < K && gj < N) ? bp[gl * sbl + gj * sbj] : 0.0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = 0; l < BK; ++l) {
      double ra[RM], rb[RN];
      for (int r = 0; r < RM; ++r) ra[r] = As[l][tx + r * T];
      for (int s = 0; s < RN; ++s) rb[s] = Bs[l][ty + s * T];
      for (int r = 0; r < RM; ++r)
        for (int s = 0; s < RN; ++s) acc[r][s] = fma(ra[r], rb[s], acc[r][s]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  __global double* cp = c + c_off[item];
  for (int r = 0; r < RM; ++r) {
    const long i = i0 + tx + r * T;  // consecutive work-items write consecutive rows (unit stride)
    if (i >= M) continue;
    for (int s = 0; s < RN; ++s) {
      const long j = j0 + ty + s * T;
      if (j >= N) continue;
      __global double* at = cp + i * sci + j * scj;
      const double v = alpha * acc[r][s];
      *at = read_c ? fma(beta, *at, v) : v;
    }
  }
}
)CLC";

}  // namespace

extern "C" int kgb_blas_dgemm_batched(int transa, int transb, double alpha, const kgb_tensor_list* Aarray,
                                      const kgb_tensor_list* Barray, double beta, kgb_tensor_list* Carray,
                                      kgb_stream stream) {
  const int64_t batch = Carray->count;
  if (Aarray->count != batch || Barray->count != batch) return KGB_ERR_INVALID;
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A = Aarray->items[0];
  const kgb_tensor* B = Barray->items[0];
  const kgb_tensor* C = Carray->items[0];
  if (A->dtype != KGB_F64 || B->dtype != KGB_F64 || C->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  cl_long K = ta ? A->sizes[0] : A->sizes[1];
  if ((ta ? A->sizes[1] : A->sizes[0]) != M || (tb ? B->sizes[1] : B->sizes[0]) != K || (tb ? B->sizes[0] : B->sizes[1]) != N)
    return KGB_ERR_INVALID;
  if (M == 0 || N == 0) return KGB_OK;
  if (!kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  if (alpha == 0.0) K = 0;  // BLAS: A and B are not read
  // Every item of a list shares its strides (one lda, ldb, ldc per call).
  const cl_long sai = ta ? A->strides[1] : A->strides[0], sal = ta ? A->strides[0] : A->strides[1];
  const cl_long sbl = tb ? B->strides[1] : B->strides[0], sbj = tb ? B->strides[0] : B->strides[1];
  const cl_long sci = C->strides[0], scj = C->strides[1];
  const cl_int read_c = beta != 0.0;

  cl_mem a_buf = nullptr, a_off = nullptr, b_buf = nullptr, b_off = nullptr, c_buf = nullptr, c_off = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, Aarray, &a_buf, &a_off) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, Barray, &b_buf, &b_off) != CL_SUCCESS ||
      kgb_cl_tensor_list_buffers(stream, Carray, &c_buf, &c_off) != CL_SUCCESS)
    return KGB_ERR_INVALID;

  const bool small = M <= 32 && N <= 32;
  const size_t tile = kThreads * (small ? 2 : 4);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, small ? "-cl-std=CL1.2 -DRM=2 -DRN=2" : "-cl-std=CL1.2 -DRM=4 -DRN=4",
                        "dgemm_batched", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof(cl_mem), &c_buf);
  err |= clSetKernelArg(k, 1, sizeof(cl_mem), &c_off);
  err |= clSetKernelArg(k, 2, sizeof(cl_mem), &a_buf);
  err |= clSetKernelArg(k, 3, sizeof(cl_mem), &a_off);
  err |= clSetKernelArg(k, 4, sizeof(cl_mem), &b_buf);
  err |= clSetKernelArg(k, 5, sizeof(cl_mem), &b_off);
  const cl_long values[] = {M, N, K, sai, sal, sbl, sbj, sci, scj};
  for (cl_uint i = 0; i < 9; ++i) err |= clSetKernelArg(k, 7 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 16, sizeof alpha, &alpha);
  err |= clSetKernelArg(k, 17, sizeof beta, &beta);
  err |= clSetKernelArg(k, 18, sizeof read_c, &read_c);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local[3] = {kThreads, kThreads, 1};
  for (int64_t first = 0; first < batch; first += kMaxGroupsZ) {
    const cl_long item_base = first;
    if (clSetKernelArg(k, 6, sizeof item_base, &item_base) != CL_SUCCESS) return KGB_ERR_INVALID;
    const int64_t items = batch - first < kMaxGroupsZ ? batch - first : kMaxGroupsZ;
    const size_t global[3] = {(static_cast<size_t>(M) + tile - 1) / tile * kThreads,
                              (static_cast<size_t>(N) + tile - 1) / tile * kThreads, static_cast<size_t>(items)};
    if (kgb_cl_enqueue(stream, k, 3, global, local) != CL_SUCCESS) return KGB_ERR_INVALID;
  }
  return KGB_OK;
}
