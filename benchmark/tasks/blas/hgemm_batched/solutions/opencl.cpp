// blas/hgemm_batched in OpenCL (cublasHgemmBatched): for every item b, C[b] := alpha * op(A[b]) op(B[b]) + beta * C[b]
// f16 storage, float compute, rounded to f16 once, column-major, op C = op T.
//
// The items of each list share one buffer on OpenCL, at offsets the harness
// keeps in a device buffer (kgb_cl_tensor_list_buffers): the kernel reads
// offsets[b] for its item instead of a pointer.
// One 3-D range covers the whole batch: dimensions 0 and 1 tile C[b] (BM x BN
// blocks, BM = 16 * RM rows, BN = 16 * RN columns), dimension 2 is the item.
// A 16 x 16 work-group stages BK-deep slices of op(A) and op(B) in local
// memory, reading along whichever index has unit stride so neighbouring
// work-items read neighbouring elements, and each work-item accumulates an
// RM x RN register tile in float (f16 is widened by vload_half and rounded
// once by vstore_half_rte).
// Small matrices take 32 x 32 tiles, larger ones 64 x 64. beta == 0 never
// reads C; alpha == 0 (or k == 0) reads neither A nor B. CPU devices (PoCL)
// take a kernel without local memory instead (gemm_batched_cpu).
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kThreads = 16;         // work-group is kThreads x kThreads
constexpr int64_t kMaxGroupsZ = 65535;  // items per launch (grid z limit of some devices)

const char kSource[] = R"CLC(
typedef half ELEM; /* f16 storage: only vload_half / vstore_half touch it (no cl_khr_fp16 needed) */
typedef float ACC;
typedef float REAL;
#define LOAD(p, i, s) vload_half(i, p)
#define MAC(acc, x, y) acc = fma(x, y, acc)
#define MUL(x, y) ((x) * (y))
#define ZERO 0.0f
#define STORE(p, i, v) vstore_half_rte(v, i, p)
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

/* Matrix `item` of operand x starts at x + x_off[item]. */
#define ITEM(off, batch, item) ((off)[item])

__kernel __attribute__((reqd_work_group_size(T, T, 1)))
void gemm_batched(__global ELEM* c, __global const long* c_off, long c_batch, __global const ELEM* a,
                  __global const long* a_off, long a_batch, __global const ELEM* b, __global const long* b_off,
                  long b_batch, long item_base, long M, long N, long K,
                  long sai, long sal, long sbl, long sbj, long sci, long scj, ACC alpha, ACC beta, int read_c,
                  REAL sa, REAL sb) {
  __local ACC As[BK][BM + 1];  /* As[l][i] = op(A)(i0 + i, l0 + l) */
  __local ACC Bs[BK][BN + 1];  /* Bs[l][j] = op(B)(l0 + l, j0 + j) */
  const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * T + tx;
  const long item = item_base + get_group_id(2);
  const long i0 = (long)get_group_id(0) * BM, j0 = (long)get_group_id(1) * BN;
  __global const ELEM* ap = a + ITEM(a_off, a_batch, item);
  __global const ELEM* bp = b + ITEM(b_off, b_batch, item);
  ACC acc[RM][RN];
  for (int r = 0; r < RM; ++r)
    for (int s = 0; s < RN; ++s) acc[r][s] = ZERO;

  for (long l0 = 0; l0 < K; l0 += BK) {
    for (int e = tid; e < BK * BM; e += T * T) {
      const int l = sai == 1 ? e / BM : e % BK, i = sai == 1 ? e % BM : e / BK;
      const long gi = i0 + i, gl = l0 + l;
      As[l][i] = (gi < M && gl < K) ? LOAD(ap, gi * sai + gl * sal, sa) : ZERO;
    }
    for (int e = tid; e < BK * BN; e += T * T) {
      const int l = sbl == 1 ? e % BK : e / BN, j = sbl == 1 ? e / BK : e % BN;
      const long gl = l0 + l, gj = j0 + j;
      Bs[l][j] = (gl < K && gj < N) ? LOAD(bp, gl * sbl + gj * sbj, sb) : ZERO;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = 0; l < BK; ++l) {
      ACC ra[RM], rb[RN];
      for (int r = 0; r < RM; ++r) ra[r] = As[l][tx + r * T];
      for (int s = 0; s < RN; ++s) rb[s] = Bs[l][ty + s * T];
      for (int r = 0; r < RM; ++r)
        for (int s = 0; s < RN; ++s) MAC(acc[r][s], ra[r], rb[s]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  __global ELEM* cp = c + ITEM(c_off, c_batch, item);
  for (int r = 0; r < RM; ++r) {
    const long i = i0 + tx + r * T;  /* consecutive work-items write consecutive rows (unit stride) */
    if (i >= M) continue;
    for (int s = 0; s < RN; ++s) {
      const long j = j0 + ty + s * T;
      if (j >= N) continue;
      const long at = i * sci + j * scj;
      ACC v = MUL(alpha, acc[r][s]);
      if (read_c) v += MUL(beta, LOAD(cp, at, (REAL)1));
      STORE(cp, at, v);
    }
  }
}

/* CPU devices (PoCL runs a work-group as a loop over its work-items and
   vectorises across them): work-item (i, jb) computes row i of CB consecutive
   columns straight from global memory, no local memory and no barriers.
   Neighbouring work-items read neighbouring elements of A's column (op N);
   the row of op(B) is the same for all of them (a broadcast). */
#define CB 8
__kernel void gemm_batched_cpu(__global ELEM* c, __global const long* c_off, long c_batch, __global const ELEM* a,
                               __global const long* a_off, long a_batch, __global const ELEM* b,
                               __global const long* b_off, long b_batch, long item_base,
                               long M, long N, long K, long sai, long sal, long sbl, long sbj, long sci, long scj,
                               ACC alpha, ACC beta, int read_c, REAL sa, REAL sb) {
  const long item = item_base + get_global_id(2);
  const long i = get_global_id(0), ic = min(i, M - 1), j0 = get_global_id(1) * CB;
  __global const ELEM* ap = a + ITEM(a_off, a_batch, item) + ic * sai;
  __global const ELEM* bp = b + ITEM(b_off, b_batch, item) + j0 * sbj;
  const long nj = min((long)CB, N - j0);
  ACC acc[CB];
  for (int s = 0; s < CB; ++s) acc[s] = ZERO;
  for (long l = 0; l < K; ++l) {
    const ACC av = LOAD(ap, l * sal, sa);
    const long row = l * sbl;
    if (nj == CB) {  /* full blocks: a fixed trip count, unrolled and vectorised across work-items */
      for (int s = 0; s < CB; ++s) MAC(acc[s], av, LOAD(bp, row + s * sbj, sb));
    } else {
      for (int s = 0; s < nj; ++s) MAC(acc[s], av, LOAD(bp, row + s * sbj, sb));
    }
  }
  if (i >= M) return;
  __global ELEM* cp = c + ITEM(c_off, c_batch, item) + i * sci + j0 * scj;
  for (int s = 0; s < nj; ++s) {
    ACC v = MUL(alpha, acc[s]);
    if (read_c) v += MUL(beta, LOAD(cp, s * scj, (REAL)1));
    STORE(cp, s * scj, v);
  }
}
)CLC";

constexpr size_t kCpuRows = 16;  // work-group of the CPU kernel (rows)
constexpr size_t kCpuCols = 8;   // CB: columns per work-item

}  // namespace

extern "C" int kgb_blas_hgemm_batched(int transa, int transb, double alpha, const kgb_tensor_list* Aarray, const kgb_tensor_list* Barray, double beta, kgb_tensor_list* Carray, kgb_stream stream) {
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  const int64_t batch = Carray->count;
  if (Aarray->count != batch || Barray->count != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  // Every item of a list shares its sizes and strides (one lda, ldb, ldc per call).
  const kgb_tensor* A0 = Aarray->items[0];
  const kgb_tensor* B0 = Barray->items[0];
  const kgb_tensor* C0 = Carray->items[0];
  if (A0->dtype != KGB_F16 || B0->dtype != KGB_F16 || C0->dtype != KGB_F16) return KGB_ERR_UNSUPPORTED;
  if (A0->rank != 2 || B0->rank != 2 || C0->rank != 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  const cl_long M = C0->sizes[0], N = C0->sizes[1];
  cl_long K = ta ? A0->sizes[0] : A0->sizes[1];
  if ((ta ? A0->sizes[1] : A0->sizes[0]) != M || (tb ? B0->sizes[1] : B0->sizes[0]) != K ||
      (tb ? B0->sizes[0] : B0->sizes[1]) != N)
    return KGB_ERR_INVALID;
  if (M == 0 || N == 0) return KGB_OK;
  const cl_float al = static_cast<cl_float>(alpha), be = static_cast<cl_float>(beta);
  if (al == 0) K = 0;  // BLAS: A and B are not read
  const cl_int read_c = be != 0;
  const cl_float sa = 1, sb = 1;  // the kernel's conjugation signs: no-ops for real matrices
  const cl_long sai = ta ? A0->strides[1] : A0->strides[0], sal = ta ? A0->strides[0] : A0->strides[1];
  const cl_long sbl = tb ? B0->strides[1] : B0->strides[0], sbj = tb ? B0->strides[0] : B0->strides[1];
  const cl_long sci = C0->strides[0], scj = C0->strides[1];

  const bool cpu_device = (kgb_cl_device_type(stream) & CL_DEVICE_TYPE_CPU) != 0;
  const bool small = M <= 32 && N <= 32;
  const size_t tile = kThreads * (small ? 2 : 4);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, small ? "-cl-std=CL1.2 -DRM=2 -DRN=2" : "-cl-std=CL1.2 -DRM=4 -DRN=4",
                        cpu_device ? "gemm_batched_cpu" : "gemm_batched", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = CL_SUCCESS;
  // Each list: the buffer holding its items and the buffer of their offsets.
  const kgb_tensor_list* lists[3] = {Carray, Aarray, Barray};
  for (cl_uint i = 0; i < 3; ++i) {
    cl_mem storage = nullptr, offsets = nullptr;
    const cl_long unused_stride = 0;
    if (kgb_cl_tensor_list_buffers(stream, lists[i], &storage, &offsets) != CL_SUCCESS) return KGB_ERR_INVALID;
    err |= clSetKernelArg(k, 3 * i, sizeof(cl_mem), &storage);
    err |= clSetKernelArg(k, 3 * i + 1, sizeof(cl_mem), &offsets);
    err |= clSetKernelArg(k, 3 * i + 2, sizeof(cl_long), &unused_stride);
  }
  const cl_long values[] = {M, N, K, sai, sal, sbl, sbj, sci, scj};
  for (cl_uint i = 0; i < 9; ++i) err |= clSetKernelArg(k, 10 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 19, sizeof al, &al);
  err |= clSetKernelArg(k, 20, sizeof be, &be);
  err |= clSetKernelArg(k, 21, sizeof read_c, &read_c);
  err |= clSetKernelArg(k, 22, sizeof sa, &sa);
  err |= clSetKernelArg(k, 23, sizeof sb, &sb);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t gpu_local[3] = {kThreads, kThreads, 1}, cpu_local[3] = {kCpuRows, 1, 1};
  for (int64_t first = 0; first < batch; first += kMaxGroupsZ) {
    const cl_long item_base = first;
    if (clSetKernelArg(k, 9, sizeof item_base, &item_base) != CL_SUCCESS) return KGB_ERR_INVALID;
    const int64_t items = batch - first < kMaxGroupsZ ? batch - first : kMaxGroupsZ;
    const size_t global[3] = {
        cpu_device ? (static_cast<size_t>(M) + kCpuRows - 1) / kCpuRows * kCpuRows : (static_cast<size_t>(M) + tile - 1) / tile * kThreads,
        cpu_device ? (static_cast<size_t>(N) + kCpuCols - 1) / kCpuCols : (static_cast<size_t>(N) + tile - 1) / tile * kThreads,
        static_cast<size_t>(items)};
    if (kgb_cl_enqueue(stream, k, 3, global, cpu_device ? cpu_local : gpu_local) != CL_SUCCESS) return KGB_ERR_INVALID;
  }
  return KGB_OK;
}
