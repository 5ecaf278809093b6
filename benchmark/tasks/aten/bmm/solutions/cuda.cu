// aten/bmm on CUDA: out[b] = self[b] @ mat2[b] for every batch b.
//
// f16 and bf16 run on the tensor cores (WMMA 16x16x16, fp32 accumulators):
// a block of 4 warps computes a 64 x 64 tile of one batch's out, each warp a
// 32 x 32 quarter as 2 x 2 fragments. A and B tiles (BK = 32 deep) go
// through shared memory; the next tiles are fetched into registers while the
// current ones feed the MMAs. The fp32 accumulators are staged in shared
// memory and written out once, rounded to the output type, along out's unit
// stride.
//
// f32 and f64 stay on the CUDA cores (exact fp32 / fp64 products; no TF32):
// a shared-memory tiled GEMM where each thread holds a TM x TN micro-tile in
// registers, with double-buffered tiles; the largest tile shape that still
// gives every SM work is chosen.
//
// Global loads follow whichever stride of a view is 1, so transposed and
// row-major operands both load coalesced, and stride-0 (broadcast) batches
// simply read the same matrix. The batch is grid dimension z (grid-strided
// beyond 65535). A column-major out is computed as its transpose so that
// warps write along its unit stride.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
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
  static __device__ __forceinline__ __half zero() { return __float2half_rn(0.0f); }
};
template <> struct Num<__nv_bfloat16> {
  using A = float;
  static __device__ __forceinline__ A load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 store(A v) { return __float2bfloat16_rn(v); }
  static __device__ __forceinline__ __nv_bfloat16 zero() { return __float2bfloat16_rn(0.0f); }
};

template <typename T>
struct GemmArgs {
  int64_t batches, M, N, K;
  const T* a;  // element (q, m, k) at a[q * a_sq + m * a_sm + k * a_sk]
  int64_t a_sq, a_sm, a_sk;
  const T* b;  // element (q, k, n) at b[q * b_sq + k * b_sk + n * b_sn]
  int64_t b_sq, b_sk, b_sn;
  T* c;  // element (q, m, n) at c[q * c_sq + m * c_sm + n * c_sn]
  int64_t c_sq, c_sm, c_sn;
  bool a_k_fast, b_n_fast;  // which index walks memory contiguously
};

// Index of tile element e (0 .. rows*cols-1) as (row, col), walking `col`
// fastest when col_fast, else `row` fastest: consecutive threads then read
// consecutive addresses of a view whose unit stride is that index.
__device__ __forceinline__ void tile_coords(int e, int rows, int cols, bool col_fast, int& r, int& c) {
  if (col_fast) {
    r = e / cols;
    c = e % cols;
  } else {
    c = e / rows;
    r = e % rows;
  }
}

// ---- tensor cores (f16, bf16) ----------------------------------------------
constexpr int kWBM = 64, kWBN = 64, kWBK = 32, kWThreads = 128, kWPad = 8;

template <typename T>
__global__ void __launch_bounds__(kWThreads) gemm_wmma(GemmArgs<T> p) {
  using namespace nvcuda;
  constexpr int kLoadsA = kWBM * kWBK / kWThreads, kLoadsB = kWBK * kWBN / kWThreads;
  __shared__ __align__(32) T As[kWBM][kWBK + kWPad];  // (m, k)
  __shared__ __align__(32) T Bs[kWBK][kWBN + kWPad];  // (k, n)
  __shared__ __align__(32) float Cs[kWBM][kWBN + 4];

  const int tid = threadIdx.x, warp = tid / 32, wm = warp / 2, wn = warp % 2;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * kWBM, n0 = static_cast<int64_t>(blockIdx.x) * kWBN;
  const int64_t steps = (p.K + kWBK - 1) / kWBK;

  for (int64_t q = blockIdx.z; q < p.batches; q += gridDim.z) {
    const T* a = p.a + q * p.a_sq;
    const T* b = p.b + q * p.b_sq;
    T ra[kLoadsA], rb[kLoadsB];
    auto load_tiles = [&](int64_t k0) {
#pragma unroll
      for (int l = 0; l < kLoadsA; ++l) {
        int mm, kk;
        tile_coords(tid + l * kWThreads, kWBM, kWBK, p.a_k_fast, mm, kk);
        const int64_t row = m0 + mm, col = k0 + kk;
        ra[l] = (row < p.M && col < p.K) ? a[row * p.a_sm + col * p.a_sk] : Num<T>::zero();
      }
#pragma unroll
      for (int l = 0; l < kLoadsB; ++l) {
        int kk, nn;
        tile_coords(tid + l * kWThreads, kWBK, kWBN, p.b_n_fast, kk, nn);
        const int64_t row = k0 + kk, col = n0 + nn;
        rb[l] = (row < p.K && col < p.N) ? b[row * p.b_sk + col * p.b_sn] : Num<T>::zero();
      }
    };
    auto store_tiles = [&]() {
#pragma unroll
      for (int l = 0; l < kLoadsA; ++l) {
        int mm, kk;
        tile_coords(tid + l * kWThreads, kWBM, kWBK, p.a_k_fast, mm, kk);
        As[mm][kk] = ra[l];
      }
#pragma unroll
      for (int l = 0; l < kLoadsB; ++l) {
        int kk, nn;
        tile_coords(tid + l * kWThreads, kWBK, kWBN, p.b_n_fast, kk, nn);
        Bs[kk][nn] = rb[l];
      }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    if (steps > 0) {
      load_tiles(0);
      store_tiles();
      __syncthreads();
    }
    for (int64_t s = 0; s < steps; ++s) {
      if (s + 1 < steps) load_tiles((s + 1) * kWBK);  // in flight during the MMAs below
#pragma unroll
      for (int kk = 0; kk < kWBK; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa[2];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb[2];
#pragma unroll
        for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk], kWBK + kWPad);
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], &Bs[kk][wn * 32 + j * 16], kWBN + kWPad);
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
      }
      __syncthreads();  // every warp is done with this step's tiles
      if (s + 1 < steps) {
        store_tiles();
        __syncthreads();
      }
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j)
        wmma::store_matrix_sync(&Cs[wm * 32 + i * 16][wn * 32 + j * 16], acc[i][j], kWBN + 4, wmma::mem_row_major);
    __syncthreads();
    T* c = p.c + q * p.c_sq;
    for (int e = tid; e < kWBM * kWBN; e += kWThreads) {
      const int r = e / kWBN, col = e % kWBN;  // n fastest: out's unit stride after the transpose trick
      const int64_t row = m0 + r, n = n0 + col;
      if (row < p.M && n < p.N) c[row * p.c_sm + n * p.c_sn] = Num<T>::store(Cs[r][col]);
    }
    __syncthreads();  // Cs and the tiles are reused by the next batch
  }
}

// ---- CUDA cores (f32, f64) -------------------------------------------------
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
  const int64_t steps = (p.K + BK - 1) / BK;

  for (int64_t q = blockIdx.z; q < p.batches; q += gridDim.z) {
    const T* a = p.a + q * p.a_sq;
    const T* b = p.b + q * p.b_sq;
    A ra[kLoadsA], rb[kLoadsB];
    auto load_tiles = [&](int64_t k0) {
#pragma unroll
      for (int l = 0; l < kLoadsA; ++l) {
        int mm, kk;
        tile_coords(tid + l * kThreads, BM, BK, p.a_k_fast, mm, kk);
        const int64_t row = m0 + mm, col = k0 + kk;
        ra[l] = (row < p.M && col < p.K) ? Num<T>::load(a[row * p.a_sm + col * p.a_sk]) : A(0);
      }
#pragma unroll
      for (int l = 0; l < kLoadsB; ++l) {
        int kk, nn;
        tile_coords(tid + l * kThreads, BK, BN, p.b_n_fast, kk, nn);
        const int64_t row = k0 + kk, col = n0 + nn;
        rb[l] = (row < p.K && col < p.N) ? Num<T>::load(b[row * p.b_sk + col * p.b_sn]) : A(0);
      }
    };
    auto store_tiles = [&](int buf) {
#pragma unroll
      for (int l = 0; l < kLoadsA; ++l) {
        int mm, kk;
        tile_coords(tid + l * kThreads, BM, BK, p.a_k_fast, mm, kk);
        As[buf][kk][mm] = ra[l];
      }
#pragma unroll
      for (int l = 0; l < kLoadsB; ++l) {
        int kk, nn;
        tile_coords(tid + l * kThreads, BK, BN, p.b_n_fast, kk, nn);
        Bs[buf][kk][nn] = rb[l];
      }
    };

    A acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = 0;

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
    T* c = p.c + q * p.c_sq;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int64_t row = m0 + ty * TM + i;
      if (row >= p.M) continue;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int64_t col = n0 + tx * TN + j;
        if (col < p.N) c[row * p.c_sm + col * p.c_sn] = Num<T>::store(acc[i][j]);
      }
    }
  }
}

unsigned batch_grid(int64_t batches) { return static_cast<unsigned>(batches < 65535 ? batches : 65535); }

template <typename T, int BM, int BN, int BK, int TM, int TN>
void launch_tiled(const GemmArgs<T>& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((p.N + BN - 1) / BN), static_cast<unsigned>((p.M + BM - 1) / BM), batch_grid(p.batches));
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
  t.a_sq = p.b_sq;
  t.a_sm = p.b_sn;
  t.a_sk = p.b_sk;
  t.b = p.a;
  t.b_sq = p.a_sq;
  t.b_sk = p.a_sk;
  t.b_sn = p.a_sm;
  t.c_sm = p.c_sn;
  t.c_sn = p.c_sm;
  p = t;
}

int64_t tiles(int64_t M, int64_t N, int64_t bm, int64_t bn) { return ((M + bm - 1) / bm) * ((N + bn - 1) / bn); }

template <typename T>
int run(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, cudaStream_t stream) {
  GemmArgs<T> p;
  p.batches = self->sizes[0];
  p.M = self->sizes[1];
  p.K = self->sizes[2];
  p.N = mat2->sizes[2];
  p.a = static_cast<const T*>(self->data);
  p.a_sq = self->strides[0];
  p.a_sm = self->strides[1];
  p.a_sk = self->strides[2];
  p.b = static_cast<const T*>(mat2->data);
  p.b_sq = mat2->strides[0];
  p.b_sk = mat2->strides[1];
  p.b_sn = mat2->strides[2];
  p.c = static_cast<T*>(out->data);
  p.c_sq = out->strides[0];
  p.c_sm = out->strides[1];
  p.c_sn = out->strides[2];
  prefer_unit_stride_columns(p);
  // Walk the unit-stride index (a stride-0 view reads the same element anyway).
  p.a_k_fast = !(p.a_sm == 1 && p.a_sk != 1);
  p.b_n_fast = !(p.b_sk == 1 && p.b_sn != 1);
  if constexpr (sizeof(T) == 2) {
    const dim3 grid(static_cast<unsigned>((p.N + kWBN - 1) / kWBN), static_cast<unsigned>((p.M + kWBM - 1) / kWBM),
                    batch_grid(p.batches));
    gemm_wmma<T><<<grid, kWThreads, 0, stream>>>(p);
  } else {
    int device = 0, sms = 132;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      return KGB_ERR_INVALID;
    const int64_t work = p.batches;  // every batch adds the same tiles
    if (sizeof(T) == 4 && work * tiles(p.M, p.N, 128, 128) >= sms) launch_tiled<T, 128, 128, 8, 8, 8>(p, stream);
    else if (2 * work * tiles(p.M, p.N, 64, 64) >= sms) launch_tiled<T, 64, 64, 16, 4, 4>(p, stream);
    else launch_tiled<T, 32, 32, 32, 2, 2>(p, stream);
  }
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_bmm(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, kgb_stream stream) {
  if (self->rank != 3 || mat2->rank != 3 || out->rank != 3) return KGB_ERR_INVALID;
  if (mat2->sizes[0] != self->sizes[0] || self->sizes[2] != mat2->sizes[1] || out->sizes[0] != self->sizes[0] ||
      out->sizes[1] != self->sizes[1] || out->sizes[2] != mat2->sizes[2])
    return KGB_ERR_INVALID;
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
