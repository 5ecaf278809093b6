// blas/cgemm in OpenCL (column-major, cuBLAS semantics): C := alpha * op(A)
// op(B) + beta * C for complex float, op C conjugating.
//
// Complex elements are float2 (real, imaginary). A 16 x 16 work-group owns a
// BM x BN block of C (BM = 16 * RM rows, BN = 16 * RN columns) and stages
// BK-deep slices of op(A) and op(B) in local memory, reading along whichever
// index has unit stride so neighbouring work-items read neighbouring
// elements; conjugation is a sign flip applied while staging, so op C costs
// nothing in the inner loop. Each work-item accumulates an RM x RN register
// tile with four FMAs per complex product, and consecutive work-items write
// consecutive rows of C (unit stride). Small matrices take 32 x 32 tiles,
// larger ones 64 x 64. beta == 0 never reads C; alpha == 0 (or k == 0)
// reads neither A nor B.
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

__kernel __attribute__((reqd_work_group_size(T, T, 1)))
void cgemm(__global float2* c, long c_off, __global const float2* a, long a_off, __global const float2* b, long b_off,
           long M, long N, long K, long sai, long sal, long sbl, long sbj, long sci, long scj, float2 alpha, float2 beta,
           int read_c, int conj_a, int conj_b) {
  __local float2 As[BK][BM + 1];  // As[l][i] = op(A)(i0 + i, l0 + l)
  __local float2 Bs[BK][BN + 1];  // Bs[l][j] = op(B)(l0 + l, j0 + j)
  const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * T + tx;
  const long i0 = (long)get_group_id(0) * BM, j0 = (long)get_group_id(1) * BN;
  __global const float2* ap = a + a_off;
  __global const float2* bp = b + b_off;
  const float sa = conj_a ? -1.0f : 1.0f, sb = conj_b ? -1.0f : 1.0f;
  float2 acc[RM][RN];
  for (int r = 0; r < RM; ++r)
    for (int s = 0; s < RN; ++s) acc[r][s] = (float2)(0.0f, 0.0f);

  for (long l0 = 0; l0 < K; l0 += BK) {
    for (int e = tid; e < BK * BM; e += T * T) {
      const int l = sai == 1 ? e / BM : e % BK, i = sai == 1 ? e % BM : e / BK;
      const long gi = i0 + i, gl = l0 + l;
      float2 v = (gi < M && gl < K) ? ap[gi * sai + gl * sal] : (float2)(0.0f, 0.0f);
      v.y *= sa;
      As[l][i] = v;
    }
    for (int e = tid; e < BK * BN; e += T * T) {
      const int l = sbl == 1 ? e % BK : e / BN, j = sbl == 1 ? e / BK : e % BN;
      const long gl = l0 + l, gj = j0 + j;
      float2 v = (gl < K && gj < N) ? bp[gl * sbl + gj * sbj] : (float2)(0.0f, 0.0f);
      v.y *= sb;
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
)CLC";

}  // namespace

extern "C" int kgb_blas_cgemm(int transa, int transb, kgb_complex alpha, const kgb_tensor* A, const kgb_tensor* B,
                              kgb_complex beta, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_C64 || B->dtype != KGB_C64 || C->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  const cl_long M = C->sizes[0], N = C->sizes[1];
  cl_long K = ta ? A->sizes[0] : A->sizes[1];
  if ((ta ? A->sizes[1] : A->sizes[0]) != M || (tb ? B->sizes[1] : B->sizes[0]) != K || (tb ? B->sizes[0] : B->sizes[1]) != N)
    return KGB_ERR_INVALID;
  if (M == 0 || N == 0) return KGB_OK;
  const cl_float2 al = {{static_cast<float>(alpha.re), static_cast<float>(alpha.im)}};
  const cl_float2 be = {{static_cast<float>(beta.re), static_cast<float>(beta.im)}};
  if (al.s[0] == 0.0f && al.s[1] == 0.0f) K = 0;  // BLAS: A and B are not read
  const cl_long sai = ta ? A->strides[1] : A->strides[0], sal = ta ? A->strides[0] : A->strides[1];
  const cl_long sbl = tb ? B->strides[1] : B->strides[0], sbj = tb ? B->strides[0] : B->strides[1];
  const cl_long sci = C->strides[0], scj = C->strides[1];
  const cl_int read_c = be.s[0] != 0.0f || be.s[1] != 0.0f, conj_a = transa == 2, conj_b = transb == 2;

  const bool small = M <= 32 && N <= 32;
  const size_t tile = kThreads * (small ? 2 : 4);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, small ? "-cl-std=CL1.2 -DRM=2 -DRN=2" : "-cl-std=CL1.2 -DRM=4 -DRN=4", "cgemm",
                        &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, C);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, A);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, B);
  const cl_long values[] = {M, N, K, sai, sal, sbl, sbj, sci, scj};
  for (cl_uint i = 0; i < 9; ++i) err |= clSetKernelArg(k, 6 + i, sizeof(cl_long), &values[i]);
  err |= clSetKernelArg(k, 15, sizeof al, &al);
  err |= clSetKernelArg(k, 16, sizeof be, &be);
  err |= clSetKernelArg(k, 17, sizeof read_c, &read_c);
  err |= clSetKernelArg(k, 18, sizeof conj_a, &conj_a);
  err |= clSetKernelArg(k, 19, sizeof conj_b, &conj_b);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local[2] = {kThreads, kThreads};
  const size_t global[2] = {(static_cast<size_t>(M) + tile - 1) / tile * kThreads,
                            (static_cast<size_t>(N) + tile - 1) / tile * kThreads};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
