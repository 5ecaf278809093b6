// blas/sgemm_ex on CUDA (cublasSgemmEx): C := alpha * op(A) op(B) + beta * C
// A and B f32, f16, bf16 or i8, C f32 (or the inputs' f16 / bf16), float compute, column-major, op C = op T.
//
// blockIdx.x/y tile C. One block of 16 x 16
// threads owns a BM x BN tile of C (BM = 16 * TM, BN = 16 * TN) and stages
// BK-deep slices of op(A) and op(B) in shared memory, double-buffered through
// registers so the next slice's global loads are in flight during the FMAs.
// Loads walk whichever index has unit stride (op N versus T/C) so neighbouring
// threads of a warp read neighbouring elements; the transpose is only a swap
// of strides, and every input element is widened exactly to float while
// staging (float accumulation, one rounding into C's type in the epilogue).
// Thread (tx, ty) accumulates rows tx + 16 r and columns ty + 16 s, so
// consecutive threads write consecutive rows of column-major C. 64 x 64 tiles,
// 32 x 32 for small matrices. alpha and beta are applied once in the
// epilogue; beta == 0 never reads C, alpha == 0 or k == 0 reads neither A
// nor B.
// A and B share one storage type (f32, f16, bf16 or i8) and C has its own
// (f32, or the inputs' f16 / bf16): the kernel is a template over both,
// instantiated for the six combinations cublasSgemmEx takes.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

typedef float Real;  // compute type
// bf16 storage: the upper 16 bits of a float, converted by hand (the same
// code in CUDA and HIP).
struct Bf16 {
  unsigned short bits;
};
typedef Real Acc;   // one accumulator

constexpr int kT = 16;                // threads per block side

// Exact widening to float (the Real argument is the complex tasks' conjugation sign).
__device__ __forceinline__ Acc load(const float* p, Real) { return *p; }
__device__ __forceinline__ Acc load(const __half* p, Real) { return __half2float(*p); }
__device__ __forceinline__ Acc load(const Bf16* p, Real) { return __uint_as_float(static_cast<unsigned>(p->bits) << 16); }
__device__ __forceinline__ Acc load(const int8_t* p, Real) { return static_cast<Acc>(*p); }
__device__ __forceinline__ Acc zero() { return Real(0); }
__device__ __forceinline__ void mac(Acc& acc, Acc a, Acc b) { acc = fma(a, b, acc); }
__device__ __forceinline__ Acc mul(Acc a, Acc b) { return a * b; }
__device__ __forceinline__ Acc add(Acc a, Acc b) { return a + b; }
__device__ __forceinline__ void store(float* p, Acc v) { *p = v; }
__device__ __forceinline__ void store(__half* p, Acc v) { *p = __float2half_rn(v); }
// Round to nearest even; a NaN stays a (quiet) NaN.
__device__ __forceinline__ void store(Bf16* p, Acc v) {
  const unsigned x = __float_as_uint(v);
  p->bits = (x & 0x7fffffffu) > 0x7f800000u ? static_cast<unsigned short>((x >> 16) | 0x40u)
                                             : static_cast<unsigned short>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

template <class In, class Out>
struct Args {
  const In* a;
  const In* b;
  Out* c;
  int64_t M, N, K;
  int64_t a_sm, a_sk;  // op(A)(m, k) at a[m * a_sm + k * a_sk]
  int64_t b_sk, b_sn;  // op(B)(k, n) at b[k * b_sk + n * b_sn]
  int64_t c_sm, c_sn;
  Acc alpha, beta;
  bool read_c;
};

template <class In, class Out, int TM, int TN, int BK>
__global__ void __launch_bounds__(kT * kT) gemm_tiled(Args<In, Out> p) {
  constexpr int BM = kT * TM, BN = kT * TN, kThreads = kT * kT;
  constexpr int kLoadsA = BM * BK / kThreads, kLoadsB = BK * BN / kThreads;
  __shared__ Acc As[BK][BM + 1];
  __shared__ Acc Bs[BK][BN + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kT + tx;
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * BM, n0 = static_cast<int64_t>(blockIdx.y) * BN;
  const In* __restrict__ a = p.a;
  const In* __restrict__ b = p.b;
  const bool a_m_fast = p.a_sm == 1, b_k_fast = p.b_sk == 1;
  Acc ra[kLoadsA], rb[kLoadsB];

  auto load_slice = [&](int64_t k0) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
      const int e = tid + l * kThreads;
      const int mm = a_m_fast ? e % BM : e / BK, kk = a_m_fast ? e / BM : e % BK;
      const int64_t gm = m0 + mm, gk = k0 + kk;
      ra[l] = (gm < p.M && gk < p.K) ? load(a + gm * p.a_sm + gk * p.a_sk, Real(1)) : zero();
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
      const int e = tid + l * kThreads;
      const int kk = b_k_fast ? e % BK : e / BN, nn = b_k_fast ? e / BK : e % BN;
      const int64_t gk = k0 + kk, gn = n0 + nn;
      rb[l] = (gk < p.K && gn < p.N) ? load(b + gk * p.b_sk + gn * p.b_sn, Real(1)) : zero();
    }
  };
  auto store_slice = [&] {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
      const int e = tid + l * kThreads;
      As[a_m_fast ? e / BM : e % BK][a_m_fast ? e % BM : e / BK] = ra[l];
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
      const int e = tid + l * kThreads;
      Bs[b_k_fast ? e % BK : e / BN][b_k_fast ? e / BK : e % BN] = rb[l];
    }
  };

  Acc acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int s = 0; s < TN; ++s) acc[r][s] = zero();

  const int64_t steps = (p.K + BK - 1) / BK;
  if (steps > 0) load_slice(0);
  for (int64_t st = 0; st < steps; ++st) {
    store_slice();
    __syncthreads();
    if (st + 1 < steps) load_slice((st + 1) * BK);  // in flight during the FMAs below
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      Acc fa[TM], fb[TN];
#pragma unroll
      for (int r = 0; r < TM; ++r) fa[r] = As[kk][tx + r * kT];
#pragma unroll
      for (int s = 0; s < TN; ++s) fb[s] = Bs[kk][ty + s * kT];
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int s = 0; s < TN; ++s) mac(acc[r][s], fa[r], fb[s]);
    }
    __syncthreads();
  }

  Out* c = p.c;
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int64_t i = m0 + tx + r * kT;
    if (i >= p.M) continue;
#pragma unroll
    for (int s = 0; s < TN; ++s) {
      const int64_t j = n0 + ty + s * kT;
      if (j >= p.N) continue;
      Out* out = c + i * p.c_sm + j * p.c_sn;
      Acc v = mul(p.alpha, acc[r][s]);
      if (p.read_c) v = add(v, mul(p.beta, load(out, Real(1))));
      store(out, v);
    }
  }
}

template <int TM, int TN, int BK, class In, class Out>
cudaError_t launch(Args<In, Out> p, cudaStream_t stream) {
  const int64_t bm = kT * TM, bn = kT * TN;
  const dim3 grid(static_cast<unsigned>((p.M + bm - 1) / bm), static_cast<unsigned>((p.N + bn - 1) / bn));
  gemm_tiled<In, Out, TM, TN, BK><<<grid, dim3(kT, kT), 0, stream>>>(p);
  return cudaGetLastError();
}

// C := alpha op(A) op(B) + beta C for A, B stored as In and C stored as Out.
template <class In, class Out>
int gemm_ex(int transa, int transb, double alpha, const kgb_tensor* A0, const kgb_tensor* B0, double beta, kgb_tensor* C0,
            kgb_stream stream) {
  if (A0->rank != 2 || B0->rank != 2 || C0->rank != 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  Args<In, Out> p{};
  p.M = C0->sizes[0];
  p.N = C0->sizes[1];
  p.K = ta ? A0->sizes[0] : A0->sizes[1];
  if ((ta ? A0->sizes[1] : A0->sizes[0]) != p.M || (tb ? B0->sizes[1] : B0->sizes[0]) != p.K ||
      (tb ? B0->sizes[0] : B0->sizes[1]) != p.N)
    return KGB_ERR_INVALID;
  if (p.M == 0 || p.N == 0) return KGB_OK;
  p.alpha = static_cast<Real>(alpha);
  p.beta = static_cast<Real>(beta);
  if (p.alpha == Real(0)) p.K = 0;  // BLAS: A and B are not read
  p.read_c = p.beta != Real(0);
  p.a = static_cast<const In*>(A0->data);
  p.b = static_cast<const In*>(B0->data);
  p.c = static_cast<Out*>(C0->data);
  p.a_sm = ta ? A0->strides[1] : A0->strides[0];
  p.a_sk = ta ? A0->strides[0] : A0->strides[1];
  p.b_sk = tb ? B0->strides[1] : B0->strides[0];
  p.b_sn = tb ? B0->strides[0] : B0->strides[1];
  p.c_sm = C0->strides[0];
  p.c_sn = C0->strides[1];
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const auto err = (p.M <= 32 && p.N <= 32) ? launch<2, 2, 16>(p, s) : launch<4, 4, 16>(p, s);
  return err == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_blas_sgemm_ex(int transa, int transb, double alpha, const kgb_tensor* A, const kgb_tensor* B, double beta, kgb_tensor* C, kgb_stream stream) {
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  if (A->dtype != B->dtype) return KGB_ERR_UNSUPPORTED;
  const int32_t in = A->dtype, out = C->dtype;
  if (out == KGB_F32) {
    if (in == KGB_F32) return gemm_ex<float, float>(transa, transb, alpha, A, B, beta, C, stream);
    if (in == KGB_F16) return gemm_ex<__half, float>(transa, transb, alpha, A, B, beta, C, stream);
    if (in == KGB_BF16) return gemm_ex<Bf16, float>(transa, transb, alpha, A, B, beta, C, stream);
    if (in == KGB_I8) return gemm_ex<int8_t, float>(transa, transb, alpha, A, B, beta, C, stream);
  }
  if (in == KGB_F16 && out == KGB_F16) return gemm_ex<__half, __half>(transa, transb, alpha, A, B, beta, C, stream);
  if (in == KGB_BF16 && out == KGB_BF16) return gemm_ex<Bf16, Bf16>(transa, transb, alpha, A, B, beta, C, stream);
  return KGB_ERR_UNSUPPORTED;
}
