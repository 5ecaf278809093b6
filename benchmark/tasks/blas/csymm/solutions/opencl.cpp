// blas/csymm in OpenCL: C = alpha * A * B + beta * C (LEFT) or
// alpha * B * A + beta * C (RIGHT), A complex symmetric (no conjugation) of
// which one triangle is stored, column-major, complex float (float2).
//
// A tiled complex GEMM with a symmetric operand: element
// (r, q) of A is read from the stored triangle, or from its mirror (q, r) for
// the other one, while it is loaded, so the unreferenced triangle is never
// read and nothing is materialised. A 16 x 16 work-group owns a BM x BN block
// of C (BM = 16 * RM, BN = 16 * RN) and stages BK-deep slices of both
// operands in local memory; each work-item accumulates an RM x RN register
// tile with four FMAs per complex product, and consecutive work-items write
// consecutive rows of C. Small matrices take 32 x 32 tiles, larger ones
// 64 x 64. CPU devices (PoCL) take csymm_cpu instead: no local memory, a row
// of 8 columns per work-item straight from global memory. beta == 0 never
// reads C; alpha == 0 reads neither A nor B.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kThreads = 16;  // work-group is kThreads x kThreads

const char kSource[] = R"CLC(
#define T 16
#ifndef RM  /* register tile, set by the build options (defaults for tools that parse the source alone) */
#define RM 4
#endif
#ifndef RN
#define RN 4
#endif
#define BM (T * RM)
#define BN (T * RN)
#define BK 8

/* Offset of element (r, q) of a matrix with strides (s0, s1); for a symmetric
   one (sym 1: lower triangle stored, 2: upper) outside its stored triangle,
   the mirror (q, r). */
long sym_offset(long r, long q, long s0, long s1, int sym) {
  int mirror = (sym == 1 && r < q) || (sym == 2 && r > q);
  return mirror ? q * s0 + r * s1 : r * s0 + q * s1;
}

__kernel __attribute__((reqd_work_group_size(T, T, 1)))
void csymm(__global float2* c, long c_off, __global const float2* a, long a_off, __global const float2* b, long b_off,
           long M, long N, long K, long sai, long sal, long sbl, long sbj, long sci, long scj, float2 alpha, float2 beta,
           int read_c, int sym_a, int sym_b) {
  __local float2 As[BK][BM + 1];  // As[l][i] = op(A)(i0 + i, l0 + l)
  __local float2 Bs[BK][BN + 1];  // Bs[l][j] = op(B)(l0 + l, j0 + j)
  const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * T + tx;
  const long i0 = (long)get_group_id(0) * BM, j0 = (long)get_group_id(1) * BN;
  __global const float2* ap = a + a_off;
  __global const float2* bp = b + b_off;
  float2 acc[RM][RN];
  for (int r = 0; r < RM; ++r)
    for (int s = 0; s < RN; ++s) acc[r][s] = (float2)(0.0f, 0.0f);

  for (long l0 = 0; l0 < K; l0 += BK) {
    for (int e = tid; e < BK * BM; e += T * T) {
      const int l = sai == 1 ? e / BM : e % BK, i = sai == 1 ? e % BM : e / BK;
      const long gi = i0 + i, gl = l0 + l;
      float2 v = (gi < M && gl < K) ? ap[sym_offset(gi, gl, sai, sal, sym_a)] : (float2)(0.0f, 0.0f);
      As[l][i] = v;
    }
    for (int e = tid; e < BK * BN; e += T * T) {
      const int l = sbl == 1 ? e % BK : e / BN, j = sbl == 1 ? e / BK : e % BN;
      const long gl = l0 + l, gj = j0 + j;
      float2 v = (gl < K && gj < N) ? bp[sym_offset(gl, gj, sbl, sbj, sym_b)] : (float2)(0.0f, 0.0f);
      Bs[l][j] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int l = 0; l < BK; ++l) {
      float2 ra[RM], rb[RN];
      for (int r = 0; r < RM; ++r) ra[r] = As[l][tx + r * T];
      for (int s = 0; s < RN; ++s) rb[s] = Bs[l][ty + s * T];
      for (int r = 0; r < RM; ++r)
        for (int s = 0; s < RN; ++s) {
          acc[r][s].x = fma(ra[r].x, rb[s].x, fma(-ra[r].y, rb[s].y, acc[r][s].x));
          acc[r][s].y = fma(ra[r].x, rb[s].y, fma(ra[r].y, rb[s].x, acc[r][s].y));
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  __global float2* cp = c + c_off;
  for (int r = 0; r < RM; ++r) {
    const long i = i0 + tx + r * T;
    if (i >= M) continue;
    for (int s = 0; s < RN; ++s) {
      const long j = j0 + ty + s * T;
      if (j >= N) continue;
      __global float2* at = cp + i * sci + j * scj;
      const float2 v = acc[r][s];
      float2 out = (float2)(alpha.x * v.x - alpha.y * v.y, alpha.x * v.y + alpha.y * v.x);
      if (read_c) {
        const float2 old = *at;
        out.x += beta.x * old.x - beta.y * old.y;
        out.y += beta.x * old.y + beta.y * old.x;
      }
      *at = out;
    }
  }
}

// CPU devices (PoCL runs a work-group as a loop over its work-items and
// vectorises across them): work-item (i, jb) computes row i of CB consecutive
// columns straight from global memory, no local memory and no barriers.
// Neighbouring work-items read neighbouring elements of A's column (op N);
// the row of op(B) is the same for all of them (a broadcast). Real and
// imaginary parts accumulate in separate arrays.
#define CB 8
__kernel void csymm_cpu(__global float2* c, long c_off, __global const float2* a, long a_off, __global const float2* b,
                        long b_off, long M, long N, long K, long sai, long sal, long sbl, long sbj, long sci, long scj,
                        float2 alpha, float2 beta, int read_c, int sym_a, int sym_b) {
  const long i = get_global_id(0), ic = min(i, M - 1), j0 = get_global_id(1) * CB;
  __global const float2* ap = a + a_off;
  __global const float2* bp = b + b_off;
  const long nj = min((long)CB, N - j0);
  float re[CB], im[CB];
  for (int s = 0; s < CB; ++s) re[s] = im[s] = 0.0f;
  for (long l = 0; l < K; ++l) {
    const float2 av = ap[sym_offset(ic, l, sai, sal, sym_a)];
    const float ar = av.x, ai = av.y;
    if (nj == CB) {  // full blocks: a fixed trip count, unrolled and vectorised across work-items
      for (int s = 0; s < CB; ++s) {
        const float2 bv = bp[sym_offset(l, j0 + s, sbl, sbj, sym_b)];
        const float bi = bv.y;
        re[s] = fma(ar, bv.x, fma(-ai, bi, re[s]));
        im[s] = fma(ar, bi, fma(ai, bv.x, im[s]));
      }
    } else {
      for (int s = 0; s < nj; ++s) {
        const float2 bv = bp[sym_offset(l, j0 + s, sbl, sbj, sym_b)];
        const float bi = bv.y;
        re[s] = fma(ar, bv.x, fma(-ai, bi, re[s]));
        im[s] = fma(ar, bi, fma(ai, bv.x, im[s]));
      }
    }
  }
  if (i >= M) return;
  __global float2* cp = c + c_off + i * sci + j0 * scj;
  for (int s = 0; s < nj; ++s) {
    float2 out = (float2)(alpha.x * re[s] - alpha.y * im[s], alpha.x * im[s] + alpha.y * re[s]);
    if (read_c) {
      const float2 old = cp[s * scj];
      out.x += beta.x * old.x - beta.y * old.y;
      out.y += beta.x * old.y + beta.y * old.x;
    }
    cp[s * scj] = out;
  }
}
)CLC";

constexpr size_t kCpuRows = 16;  // work-group of the CPU kernel (rows)
constexpr size_t kCpuCols = 8;   // CB: columns per work-item

}  // namespace

extern "C" int kgb_blas_csymm(int side, int uplo, kgb_complex alpha, const kgb_tensor* A, const kgb_tensor* B,
                              kgb_complex beta, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_C64 || B->dtype != KGB_C64 || C->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2 || (side != 0 && side != 1) || (uplo != 0 && uplo != 1))
    return KGB_ERR_INVALID;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  cl_long K = side ? N : M;
  if (A->sizes[0] != K || A->sizes[1] != K || B->sizes[0] != M || B->sizes[1] != N) return KGB_ERR_INVALID;
  if (M == 0 || N == 0) return KGB_OK;
  const cl_float2 al = {{static_cast<float>(alpha.re), static_cast<float>(alpha.im)}};
  const cl_float2 be = {{static_cast<float>(beta.re), static_cast<float>(beta.im)}};
  if (al.s[0] == 0.0f && al.s[1] == 0.0f) K = 0;  // BLAS: A and B are not read
  // LEFT: C = A B (left operand A, symmetric); RIGHT: C = B A (right operand A, symmetric).
  const kgb_tensor* L = side ? B : A;
  const kgb_tensor* R = side ? A : B;
  const cl_long sai = L->strides[0], sal = L->strides[1], sbl = R->strides[0], sbj = R->strides[1];
  const cl_long sci = C->strides[0], scj = C->strides[1];
  const cl_int read_c = be.s[0] != 0.0f || be.s[1] != 0.0f, sym_a = side ? 0 : 1 + uplo, sym_b = side ? 1 + uplo : 0;

  const bool small = M <= 32 && N <= 32;
  const size_t tile = kThreads * (small ? 2 : 4);
  cl_kernel k = nullptr;
  const bool cpu_device = (kgb_cl_device_type(stream) & CL_DEVICE_TYPE_CPU) != 0;
  if (kgb_cl_get_kernel(stream, kSource, small ? "-cl-std=CL1.2 -DRM=2 -DRN=2" : "-cl-std=CL1.2 -DRM=4 -DRN=4",
                        cpu_device ? "csymm_cpu" : "csymm", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, C);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, L);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, R);
  const cl_long values[] = {M, N, K, sai, sal, sbl, sbj, sci, scj};
  for (cl_uint i = 0; i < 9; ++i) err |= clSetKernelArg(k, 6 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 15, sizeof al, &al);
  err |= clSetKernelArg(k, 16, sizeof be, &be);
  err |= clSetKernelArg(k, 17, sizeof read_c, &read_c);
  err |= clSetKernelArg(k, 18, sizeof sym_a, &sym_a);
  err |= clSetKernelArg(k, 19, sizeof sym_b, &sym_b);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t gpu_local[2] = {kThreads, kThreads}, cpu_local[2] = {kCpuRows, 1};
  const size_t global[2] = {
      cpu_device ? (static_cast<size_t>(M) + kCpuRows - 1) / kCpuRows * kCpuRows : (static_cast<size_t>(M) + tile - 1) / tile * kThreads,
      cpu_device ? (static_cast<size_t>(N) + kCpuCols - 1) / kCpuCols : (static_cast<size_t>(N) + tile - 1) / tile * kThreads};
  return kgb_cl_enqueue(stream, k, 2, global, cpu_device ? cpu_local : gpu_local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
