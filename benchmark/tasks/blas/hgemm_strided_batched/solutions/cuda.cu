// blas/hgemm_strided_batched on CUDA (cublasHgemmStridedBatched): for every item b, C[b] := alpha * op(A[b]) op(B[b]) + beta * C[b]
// f16 storage, float compute, rounded to f16 once, column-major, op C = op T.
//
// blockIdx.z is the item, blockIdx.x/y tile its C. One block of 16 x 16
// threads owns a BM x BN tile of C (BM = 16 * TM, BN = 16 * TN) and stages
// BK-deep slices of op(A) and op(B) in shared memory, double-buffered through
// registers so the next slice's global loads are in flight during the FMAs.
// Loads walk whichever index has unit stride (op N versus T/C) so neighbouring
// threads of a warp read neighbouring elements; the transpose is only a swap
// of strides, and f16 is widened to float while staging (float accumulation,
// one rounding to f16 in the epilogue).
// Thread (tx, ty) accumulates rows tx + 16 r and columns ty + 16 s, so
// consecutive threads write consecutive rows of column-major C. 64 x 64 tiles,
// 32 x 32 for small matrices (many small items fill the GPU through the
// batch). alpha and beta are applied once in the epilogue; beta == 0 never
// reads C, alpha == 0 or k == 0 reads neither A nor B.
// Item b of a rank-3 view [rows, cols, batch] starts at data + b * strides[2].
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

typedef float Real;  // compute type
typedef __half Elem;
typedef Real Acc;   // one accumulator

constexpr int kT = 16;                // threads per block side
constexpr int64_t kMaxGridZ = 65535;  // items per launch

__device__ __forceinline__ Acc load(const Elem* p, Real) { return __half2float(*p); }  // the sign only conjugates complex values
__device__ __forceinline__ Acc zero() { return Real(0); }
__device__ __forceinline__ void mac(Acc& acc, Acc a, Acc b) { acc = fma(a, b, acc); }
__device__ __forceinline__ Acc mul(Acc a, Acc b) { return a * b; }
__device__ __forceinline__ Acc add(Acc a, Acc b) { return a + b; }
__device__ __forceinline__ void store(Elem* p, Acc v) { *p = __float2half_rn(v); }

struct Args {
  const Elem* a;
  const Elem* b;
  Elem* c;
  int64_t a_batch, b_batch, c_batch;  // batch strides (0 allowed for A and B)
  int64_t item_base, M, N, K;
  int64_t a_sm, a_sk;  // op(A)(m, k) at a[m * a_sm + k * a_sk]
  int64_t b_sk, b_sn;  // op(B)(k, n) at b[k * b_sk + n * b_sn]
  int64_t c_sm, c_sn;
  Acc alpha, beta;
  bool read_c;
};

template <int TM, int TN, int BK>
__global__ void __launch_bounds__(kT * kT) gemm_batched_tiled(Args p) {
  constexpr int BM = kT * TM, BN = kT * TN, kThreads = kT * kT;
  constexpr int kLoadsA = BM * BK / kThreads, kLoadsB = BK * BN / kThreads;
  __shared__ Acc As[BK][BM + 1];
  __shared__ Acc Bs[BK][BN + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kT + tx;
  const int64_t item = p.item_base + blockIdx.z;
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * BM, n0 = static_cast<int64_t>(blockIdx.y) * BN;
  const Elem* __restrict__ a = p.a + item * p.a_batch;
  const Elem* __restrict__ b = p.b + item * p.b_batch;
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

  Elem* c = p.c + item * p.c_batch;
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int64_t i = m0 + tx + r * kT;
    if (i >= p.M) continue;
#pragma unroll
    for (int s = 0; s < TN; ++s) {
      const int64_t j = n0 + ty + s * kT;
      if (j >= p.N) continue;
      Elem* out = c + i * p.c_sm + j * p.c_sn;
      Acc v = mul(p.alpha, acc[r][s]);
      if (p.read_c) v = add(v, mul(p.beta, load(out, Real(1))));
      store(out, v);
    }
  }
}

template <int TM, int TN, int BK>
cudaError_t launch(Args p, int64_t batch, cudaStream_t stream) {
  const int64_t bm = kT * TM, bn = kT * TN;
  for (int64_t first = 0; first < batch; first += kMaxGridZ) {
    p.item_base = first;
    const int64_t items = batch - first < kMaxGridZ ? batch - first : kMaxGridZ;
    const dim3 grid(static_cast<unsigned>((p.M + bm - 1) / bm), static_cast<unsigned>((p.N + bn - 1) / bn),
                    static_cast<unsigned>(items));
    gemm_batched_tiled<TM, TN, BK><<<grid, dim3(kT, kT), 0, stream>>>(p);
  }
  return cudaGetLastError();
}

}  // namespace

extern "C" int kgb_blas_hgemm_strided_batched(int transa, int transb, double alpha, const kgb_tensor* A, const kgb_tensor* B, double beta, kgb_tensor* C, kgb_stream stream) {
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  if (A->dtype != KGB_F16 || B->dtype != KGB_F16 || C->dtype != KGB_F16) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 3 || B->rank != 3 || C->rank != 3) return KGB_ERR_INVALID;
  const int64_t batch = C->sizes[2];
  if (A->sizes[2] != batch || B->sizes[2] != batch) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  const kgb_tensor* A0 = A;
  const kgb_tensor* B0 = B;
  const kgb_tensor* C0 = C;
  const bool ta = transa != 0, tb = transb != 0;
  Args p{};
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
  p.a = static_cast<const Elem*>(A->data);
  p.b = static_cast<const Elem*>(B->data);
  p.c = static_cast<Elem*>(C->data);
  p.a_batch = A->strides[2];
  p.b_batch = B->strides[2];
  p.c_batch = C->strides[2];
  p.a_sm = ta ? A0->strides[1] : A0->strides[0];
  p.a_sk = ta ? A0->strides[0] : A0->strides[1];
  p.b_sk = tb ? B0->strides[1] : B0->strides[0];
  p.b_sn = tb ? B0->strides[0] : B0->strides[1];
  p.c_sm = C0->strides[0];
  p.c_sn = C0->strides[1];
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const auto err = (p.M <= 32 && p.N <= 32) ? launch<2, 2, 16>(p, batch, s) : launch<4, 4, 16>(p, batch, s);
  return err == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
