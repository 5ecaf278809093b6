// blas/sgemm_ex in OpenCL (cublasSgemmEx): C := alpha * op(A) op(B) + beta * C
// A and B f32, f16, bf16 or i8, C f32 (or the inputs' f16 / bf16), float compute, column-major, op C = op T.
//
// A and B share one storage type (f32, f16, bf16 or i8) and C has its own
// (f32, or the inputs' f16 / bf16); the program is built once per type
// combination (-DIN_DT, -DOUT_DT) and widens every element exactly to float.
// A 2-D range tiles C (BM x BN blocks, BM = 16 * RM rows, BN = 16 * RN
// columns).
// A 16 x 16 work-group stages BK-deep slices of op(A) and op(B) in local
// memory, reading along whichever index has unit stride so neighbouring
// work-items read neighbouring elements, and each work-item accumulates an
// RM x RN register tile in float. op() only swaps the strides.
// Small matrices take 32 x 32 tiles, larger ones 64 x 64. beta == 0 never
// reads C; alpha == 0 (or k == 0) reads neither A nor B. CPU devices (PoCL)
// take a kernel without local memory instead (gemm_cpu).
#include <stdint.h>

#include <string>

#include "kgb_opencl.h"

namespace {

constexpr size_t kThreads = 16;         // work-group is kThreads x kThreads

const char kSource[] = R"CLC(
/* A and B are IN, C is OUT, picked by -DIN_DT / -DOUT_DT (kgb dtypes: 6 f32, 4 f16, 5 bf16, 1 i8). f16 storage is
   only touched by vload_half / vstore_half (no cl_khr_fp16 needed); bf16 is the upper half of a float. */
typedef float ACC;
typedef float REAL;
#ifndef IN_DT
#define IN_DT 6
#endif
#ifndef OUT_DT
#define OUT_DT 6
#endif
#if IN_DT == 4
typedef half IN;
#define LOAD(p, i, s) vload_half(i, p)
#elif IN_DT == 5
typedef ushort IN;
#define LOAD(p, i, s) as_float((uint)(p)[i] << 16)
#elif IN_DT == 1
typedef char IN;
#define LOAD(p, i, s) ((float)(p)[i])
#else
typedef float IN;
#define LOAD(p, i, s) ((p)[i])
#endif
/* float -> bf16 bits, rounded to nearest even; a NaN stays a quiet NaN. */
ushort bf16_bits(float f) {
  const uint x = as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);
  return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
#if OUT_DT == 4
typedef half OUT;
#define LOAD_C(p, i) vload_half(i, p)
#define STORE(p, i, v) vstore_half_rte(v, i, p)
#elif OUT_DT == 5
typedef ushort OUT;
#define LOAD_C(p, i) as_float((uint)(p)[i] << 16)
#define STORE(p, i, v) ((p)[i] = bf16_bits(v))
#else
typedef float OUT;
#define LOAD_C(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#endif
#define MAC(acc, x, y) acc = fma(x, y, acc)
#define MUL(x, y) ((x) * (y))
#define ZERO 0.0f
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
void gemm_tiled(__global OUT* c, long c_off, __global const IN* a, long a_off, __global const IN* b, long b_off, long M,
                long N, long K, long sai, long sal, long sbl, long sbj, long sci, long scj, ACC alpha, ACC beta,
                int read_c, REAL sa, REAL sb) {
  __local ACC As[BK][BM + 1];  /* As[l][i] = op(A)(i0 + i, l0 + l) */
  __local ACC Bs[BK][BN + 1];  /* Bs[l][j] = op(B)(l0 + l, j0 + j) */
  const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * T + tx;
  const long i0 = (long)get_group_id(0) * BM, j0 = (long)get_group_id(1) * BN;
  __global const IN* ap = a + a_off;
  __global const IN* bp = b + b_off;
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
  __global OUT* cp = c + c_off;
  for (int r = 0; r < RM; ++r) {
    const long i = i0 + tx + r * T;  /* consecutive work-items write consecutive rows (unit stride) */
    if (i >= M) continue;
    for (int s = 0; s < RN; ++s) {
      const long j = j0 + ty + s * T;
      if (j >= N) continue;
      const long at = i * sci + j * scj;
      ACC v = MUL(alpha, acc[r][s]);
      if (read_c) v += beta * LOAD_C(cp, at);
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
__kernel void gemm_cpu(__global OUT* c, long c_off, __global const IN* a, long a_off, __global const IN* b, long b_off,
                       long M, long N, long K, long sai, long sal, long sbl, long sbj, long sci, long scj, ACC alpha,
                       ACC beta, int read_c, REAL sa, REAL sb) {
  const long i = get_global_id(0), ic = min(i, M - 1), j0 = get_global_id(1) * CB;
  __global const IN* ap = a + a_off + ic * sai;
  __global const IN* bp = b + b_off + j0 * sbj;
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
  __global OUT* cp = c + c_off + i * sci + j0 * scj;
  for (int s = 0; s < nj; ++s) {
    ACC v = MUL(alpha, acc[s]);
    if (read_c) v += beta * LOAD_C(cp, s * scj);
    STORE(cp, s * scj, v);
  }
}
)CLC";

constexpr size_t kCpuRows = 16;  // work-group of the CPU kernel (rows)
constexpr size_t kCpuCols = 8;   // CB: columns per work-item

// The build options naming A/B's and C's storage types (kgb dtype numbers),
// or nullptr for a combination cublasSgemmEx does not take.
const char* type_options(int32_t in, int32_t out) {
  if (out == KGB_F32) {
    if (in == KGB_F32) return " -DIN_DT=6 -DOUT_DT=6";
    if (in == KGB_F16) return " -DIN_DT=4 -DOUT_DT=6";
    if (in == KGB_BF16) return " -DIN_DT=5 -DOUT_DT=6";
    if (in == KGB_I8) return " -DIN_DT=1 -DOUT_DT=6";
  }
  if (in == KGB_F16 && out == KGB_F16) return " -DIN_DT=4 -DOUT_DT=4";
  if (in == KGB_BF16 && out == KGB_BF16) return " -DIN_DT=5 -DOUT_DT=5";
  return nullptr;
}

}  // namespace

extern "C" int kgb_blas_sgemm_ex(int transa, int transb, double alpha, const kgb_tensor* A, const kgb_tensor* B, double beta, kgb_tensor* C, kgb_stream stream) {
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  if (A->dtype != B->dtype) return KGB_ERR_UNSUPPORTED;
  const char* types = type_options(A->dtype, C->dtype);
  if (!types) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  const kgb_tensor* A0 = A;
  const kgb_tensor* B0 = B;
  const kgb_tensor* C0 = C;
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
  const std::string options = std::string(small ? "-cl-std=CL1.2 -DRM=2 -DRN=2" : "-cl-std=CL1.2 -DRM=4 -DRN=4") + types;
  if (kgb_cl_get_kernel(stream, kSource, options.c_str(), cpu_device ? "gemm_cpu" : "gemm_tiled", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = CL_SUCCESS;
  // Each operand: its buffer and the element offset of its view (two arguments).
  err |= kgb_cl_set_tensor_arg(stream, k, 0, C);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, A);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, B);
  const cl_long values[] = {M, N, K, sai, sal, sbl, sbj, sci, scj};
  for (cl_uint i = 0; i < 9; ++i) err |= clSetKernelArg(k, 6 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 15, sizeof al, &al);
  err |= clSetKernelArg(k, 16, sizeof be, &be);
  err |= clSetKernelArg(k, 17, sizeof read_c, &read_c);
  err |= clSetKernelArg(k, 18, sizeof sa, &sa);
  err |= clSetKernelArg(k, 19, sizeof sb, &sb);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t gpu_local[2] = {kThreads, kThreads}, cpu_local[2] = {kCpuRows, 1};
  const size_t global[2] = {
      cpu_device ? (static_cast<size_t>(M) + kCpuRows - 1) / kCpuRows * kCpuRows : (static_cast<size_t>(M) + tile - 1) / tile * kThreads,
      cpu_device ? (static_cast<size_t>(N) + kCpuCols - 1) / kCpuCols : (static_cast<size_t>(N) + tile - 1) / tile * kThreads};
  if (kgb_cl_enqueue(stream, k, 2, global, cpu_device ? cpu_local : gpu_local) != CL_SUCCESS) return KGB_ERR_INVALID;
  return KGB_OK;
}
