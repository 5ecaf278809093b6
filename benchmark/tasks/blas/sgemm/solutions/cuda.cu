// blas/sgemm on CUDA: C := alpha * op(A) * op(B) + beta * C, column-major
// views with any strides, computed in float on the CUDA cores.
//
// The GEMM is the shared-memory tiled kernel of aten/mm (BM x BN block
// tiles, TM x TN register micro-tiles, register-prefetched double-buffered
// K steps, loads along whichever stride is 1), with the BLAS epilogue:
// beta == 0 never reads C (NaN in C must not leak), otherwise
// C = alpha * sum + beta * C. alpha == 0 or k == 0 skip A and B altogether
// and only scale C (a separate elementwise kernel).
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

template <typename T> struct Num;
template <> struct Num<float> {
  using A = float;
  static __device__ __forceinline__ A load(float v) { return v; }
  static __device__ __forceinline__ float store(A v) { return v; }
};

template <typename T>
struct GemmArgs {
  float alpha, beta;
  bool beta_zero;  // C is not read at all
  int64_t M, N, K;
  const T* a;  // element (m, k) at a[m * a_sm + k * a_sk]
  int64_t a_sm, a_sk;
  const T* b;  // element (k, n) at b[k * b_sk + n * b_sn]
  int64_t b_sk, b_sn;
  T* c;  // element (m, n) at c[m * c_sm + n * c_sn]
  int64_t c_sm, c_sn;
  bool a_k_fast, b_n_fast;  // which index walks memory contiguously
};

template <typename T, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) gemm_tiled(GemmArgs<T> p) {
  using A = typename Num<T>::A;
  constexpr int kThreadsX = BN / TN, kThreadsY = BM / TM, kThreads = kThreadsX * kThreadsY;
  constexpr int kPad = 16 / sizeof(A);
  constexpr int kLoadsA = BM * BK / kThreads, kLoadsB = BK * BN / kThreads;
  static_assert(BM * BK % kThreads == 0 && BK * BN % kThreads == 0, "tile loads must divide evenly");
  __shared__ __align__(16) A As[2][BK][BM + kPad];
  __shared__ __align__(16) A Bs[2][BK][BN + kPad];

  const int tid = threadIdx.x, tx = tid % kThreadsX, ty = tid / kThreadsX;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * BM, n0 = static_cast<int64_t>(blockIdx.x) * BN;
  A ra[kLoadsA], rb[kLoadsB];

  auto load_tiles = [&](int64_t k0) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
      const int e = tid + l * kThreads;
      const int kk = p.a_k_fast ? e % BK : e / BM, mm = p.a_k_fast ? e / BK : e % BM;
      const int64_t row = m0 + mm, col = k0 + kk;
      ra[l] = (row < p.M && col < p.K) ? Num<T>::load(p.a[row * p.a_sm + col * p.a_sk]) : A(0);
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
      const int e = tid + l * kThreads;
      const int nn = p.b_n_fast ? e % BN : e / BK, kk = p.b_n_fast ? e / BN : e % BK;
      const int64_t row = k0 + kk, col = n0 + nn;
      rb[l] = (row < p.K && col < p.N) ? Num<T>::load(p.b[row * p.b_sk + col * p.b_sn]) : A(0);
    }
  };
  auto store_tiles = [&](int buf) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
      const int e = tid + l * kThreads;
      const int kk = p.a_k_fast ? e % BK : e / BM, mm = p.a_k_fast ? e / BK : e % BM;
      As[buf][kk][mm] = ra[l];
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
      const int e = tid + l * kThreads;
      const int nn = p.b_n_fast ? e % BN : e / BK, kk = p.b_n_fast ? e / BN : e % BK;
      Bs[buf][kk][nn] = rb[l];
    }
  };

  A acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0;

  const int64_t steps = (p.K + BK - 1) / BK;
  if (steps > 0) {
    load_tiles(0);
    store_tiles(0);
    __syncthreads();
  }
  for (int64_t s = 0; s < steps; ++s) {
    const int buf = static_cast<int>(s & 1);
    if (s + 1 < steps) load_tiles((s + 1) * BK);  // in flight during the FMAs below
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      A fa[TM], fb[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) fa[i] = As[buf][kk][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) fb[j] = Bs[buf][kk][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += fa[i] * fb[j];
    }
    if (s + 1 < steps) store_tiles(buf ^ 1);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int64_t row = m0 + ty * TM + i;
    if (row >= p.M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int64_t col = n0 + tx * TN + j;
      if (col >= p.N) continue;
      T* out = p.c + row * p.c_sm + col * p.c_sn;
      *out = p.beta_zero ? p.alpha * acc[i][j] : fmaf(p.beta, *out, p.alpha * acc[i][j]);
    }
  }
}

template <typename T, int BM, int BN, int BK, int TM, int TN>
void launch(const GemmArgs<T>& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((p.N + BN - 1) / BN), static_cast<unsigned>((p.M + BM - 1) / BM));
  gemm_tiled<T, BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN), 0, stream>>>(p);
}

// Out stored column-major (unit stride along m): compute the transpose
// instead, out^T = B^T A^T, so that the n index of the kernel (the one the
// threads of a warp walk when writing) is the unit-stride one.
template <typename T>
void prefer_unit_stride_columns(GemmArgs<T>& p) {
  if (!(p.c_sm == 1 && p.c_sn != 1)) return;
  GemmArgs<T> t = p;
  t.M = p.N;
  t.N = p.M;
  t.a = p.b;
  t.a_sm = p.b_sn;
  t.a_sk = p.b_sk;
  t.b = p.a;
  t.b_sk = p.a_sk;
  t.b_sn = p.a_sm;
  t.c_sm = p.c_sn;
  t.c_sn = p.c_sm;
  p = t;
}

int64_t tiles(int64_t M, int64_t N, int64_t bm, int64_t bn) { return ((M + bm - 1) / bm) * ((N + bn - 1) / bn); }

// C := beta * C (beta == 0: C := 0 without reading it), over an m x n view.
__global__ void __launch_bounds__(256) scale_c(float* c, int64_t m, int64_t n, int64_t c_sm, int64_t c_sn, float beta,
                                               bool beta_zero) {
  const int64_t total = m * n;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * 256 + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * 256) {
    // i walks the first index fastest: column-major C writes coalesce.
    const int64_t row = i % m, col = i / m;
    float* out = c + row * c_sm + col * c_sn;
    *out = beta_zero ? 0.0f : beta * *out;
  }
}

}  // namespace

extern "C" int kgb_blas_sgemm(int64_t transa, int64_t transb, double alpha, const kgb_tensor* A, const kgb_tensor* B,
                              double beta, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_F32 || B->dtype != KGB_F32 || C->dtype != KGB_F32) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  GemmArgs<float> p;
  p.M = C->sizes[0];
  p.N = C->sizes[1];
  p.K = transa ? A->sizes[0] : A->sizes[1];
  if (p.M == 0 || p.N == 0) return KGB_OK;
  p.alpha = static_cast<float>(alpha);
  p.beta = static_cast<float>(beta);
  p.beta_zero = p.beta == 0.0f;
  p.c = static_cast<float*>(C->data);
  p.c_sm = C->strides[0];
  p.c_sn = C->strides[1];
  if (p.alpha == 0.0f || p.K == 0) {
    int64_t blocks = (p.M * p.N + 255) / 256;
    scale_c<<<static_cast<unsigned>(blocks > 65535 ? 65535 : blocks), 256, 0, s>>>(p.c, p.M, p.N, p.c_sm, p.c_sn, p.beta,
                                                                                    p.beta_zero);
    return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
  }
  // op(A)(m, k) and op(B)(k, n) as strided views of the stored matrices.
  p.a = static_cast<const float*>(A->data);
  p.a_sm = transa ? A->strides[1] : A->strides[0];
  p.a_sk = transa ? A->strides[0] : A->strides[1];
  p.b = static_cast<const float*>(B->data);
  p.b_sk = transb ? B->strides[1] : B->strides[0];
  p.b_sn = transb ? B->strides[0] : B->strides[1];
  prefer_unit_stride_columns(p);
  p.a_k_fast = !(p.a_sm == 1 && p.a_sk != 1);
  p.b_n_fast = !(p.b_sk == 1 && p.b_sn != 1);
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return KGB_ERR_INVALID;
  if (tiles(p.M, p.N, 128, 128) >= sms) launch<float, 128, 128, 8, 8, 8>(p, s);
  else if (2 * tiles(p.M, p.N, 64, 64) >= sms) launch<float, 64, 64, 16, 4, 4>(p, s);
  else launch<float, 32, 32, 32, 2, 2>(p, s);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}
