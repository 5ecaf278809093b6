// aten/mm on CUDA: out = self @ mat2, a shared-memory tiled GEMM on the
// CUDA cores (no tensor cores: f32 stays exact float arithmetic).
//
// Each block computes a BM x BN tile of out; each thread a TM x TN
// micro-tile held in registers. The K dimension advances in steps of BK:
// the next A and B tiles are loaded from global memory into registers while
// the current ones are used from shared memory (double buffering, one
// barrier per step). Global loads follow whichever stride of a view is 1,
// so transposed and row-major operands both load coalesced; 16-bit inputs
// are converted to float on the way into shared memory (accumulation is
// float; f64 accumulates in double). Three tile shapes; the largest that
// still gives every SM work is chosen. A column-major out is computed as
// its transpose so that warps write along its unit stride.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
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
template <> struct Num<double> {
  using A = double;
  static __device__ __forceinline__ A load(double v) { return v; }
  static __device__ __forceinline__ double store(A v) { return v; }
};
template <> struct Num<__half> {
  using A = float;
  static __device__ __forceinline__ A load(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half store(A v) { return __float2half_rn(v); }
};
template <> struct Num<__nv_bfloat16> {
  using A = float;
  static __device__ __forceinline__ A load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 store(A v) { return __float2bfloat16_rn(v); }
};

template <typename T>
struct GemmArgs {
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
      if (col < p.N) p.c[row * p.c_sm + col * p.c_sn] = Num<T>::store(acc[i][j]);
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

template <typename T>
int run(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, cudaStream_t stream) {
  if (self->rank != 2 || mat2->rank != 2 || out->rank != 2) return KGB_ERR_INVALID;
  GemmArgs<T> p;
  p.M = self->sizes[0];
  p.K = self->sizes[1];
  p.N = mat2->sizes[1];
  if (mat2->sizes[0] != p.K || out->sizes[0] != p.M || out->sizes[1] != p.N) return KGB_ERR_INVALID;
  p.a = static_cast<const T*>(self->data);
  p.a_sm = self->strides[0];
  p.a_sk = self->strides[1];
  p.b = static_cast<const T*>(mat2->data);
  p.b_sk = mat2->strides[0];
  p.b_sn = mat2->strides[1];
  p.c = static_cast<T*>(out->data);
  p.c_sm = out->strides[0];
  p.c_sn = out->strides[1];
  // Walk the unit-stride index (a stride-0 view reads the same element anyway).
  prefer_unit_stride_columns(p);
  p.a_k_fast = !(p.a_sm == 1 && p.a_sk != 1);
  p.b_n_fast = !(p.b_sk == 1 && p.b_sn != 1);
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return KGB_ERR_INVALID;
  bool launched = false;
  if constexpr (sizeof(typename Num<T>::A) == 4) {  // 8x8 double micro-tiles would spill
    if (tiles(p.M, p.N, 128, 128) >= sms) {
      launch<T, 128, 128, 8, 8, 8>(p, stream);
      launched = true;
    }
  }
  if (!launched) {
    if (2 * tiles(p.M, p.N, 64, 64) >= sms) launch<T, 64, 64, 16, 4, 4>(p, stream);
    else launch<T, 32, 32, 32, 2, 2>(p, stream);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_mm(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || mat2->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return run<float>(self, mat2, out, s);
    case KGB_F64: return run<double>(self, mat2, out, s);
    case KGB_F16: return run<__half>(self, mat2, out, s);
    case KGB_BF16: return run<__nv_bfloat16>(self, mat2, out, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
