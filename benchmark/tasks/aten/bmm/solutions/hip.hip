// aten/bmm in HIP: out[b] = self[b] @ mat2[b] for every batch b.
//
// A shared-memory tiled GEMM: each thread holds a TM x TN micro-tile in
// registers, with double-buffered tiles (the next tiles are fetched into
// registers while the current ones feed the FMAs); the largest tile shape
// that still gives every compute unit work is chosen. f16 and bf16 are
// converted to float on the way into shared memory and accumulate in float,
// rounded once on the way out; f32 accumulates in float, f64 in double.
//
// Global loads follow whichever stride of a view is 1, so transposed and
// row-major operands both load coalesced, and stride-0 (broadcast) batches
// simply read the same matrix. The batch is grid dimension z (grid-strided
// beyond 65535). A column-major out is computed as its transpose so that
// wavefronts write along its unit stride.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

// Storage type S and accumulation type A per dtype; f16/bf16 are uint16_t
// storage converted with kgb_half.h.
struct F32 {
  using S = float; using A = float;
  static __device__ __forceinline__ A load(S v) { return v; }
  static __device__ __forceinline__ S store(A v) { return v; }
};
struct F64 {
  using S = double; using A = double;
  static __device__ __forceinline__ A load(S v) { return v; }
  static __device__ __forceinline__ S store(A v) { return v; }
};
struct F16 {
  using S = uint16_t; using A = float;
  static __device__ __forceinline__ A load(S v) { return kgb_f16_to_float(v); }
  static __device__ __forceinline__ S store(A v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using A = float;
  static __device__ __forceinline__ A load(S v) { return kgb_bf16_to_float(v); }
  static __device__ __forceinline__ S store(A v) { return kgb_float_to_bf16(v); }
};

template <typename S>
struct GemmArgs {
  int64_t batches, M, N, K;
  const S* a;  // element (q, m, k) at a[q * a_sq + m * a_sm + k * a_sk]
  int64_t a_sq, a_sm, a_sk;
  const S* b;  // element (q, k, n) at b[q * b_sq + k * b_sk + n * b_sn]
  int64_t b_sq, b_sk, b_sn;
  S* c;  // element (q, m, n) at c[q * c_sq + m * c_sm + n * c_sn]
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

template <typename K, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) gemm_tiled(GemmArgs<typename K::S> p) {
  using A = typename K::A;
  using S = typename K::S;
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
    const S* a = p.a + q * p.a_sq;
    const S* b = p.b + q * p.b_sq;
    A ra[kLoadsA], rb[kLoadsB];
    auto load_tiles = [&](int64_t k0) {
#pragma unroll
      for (int l = 0; l < kLoadsA; ++l) {
        int mm, kk;
        tile_coords(tid + l * kThreads, BM, BK, p.a_k_fast, mm, kk);
        const int64_t row = m0 + mm, col = k0 + kk;
        ra[l] = (row < p.M && col < p.K) ? K::load(a[row * p.a_sm + col * p.a_sk]) : A(0);
      }
#pragma unroll
      for (int l = 0; l < kLoadsB; ++l) {
        int kk, nn;
        tile_coords(tid + l * kThreads, BK, BN, p.b_n_fast, kk, nn);
        const int64_t row = k0 + kk, col = n0 + nn;
        rb[l] = (row < p.K && col < p.N) ? K::load(b[row * p.b_sk + col * p.b_sn]) : A(0);
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
    S* c = p.c + q * p.c_sq;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int64_t row = m0 + ty * TM + i;
      if (row >= p.M) continue;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int64_t col = n0 + tx * TN + j;
        if (col < p.N) c[row * p.c_sm + col * p.c_sn] = K::store(acc[i][j]);
      }
    }
  }
}

unsigned batch_grid(int64_t batches) { return static_cast<unsigned>(batches < 65535 ? batches : 65535); }

template <typename K, int BM, int BN, int BK, int TM, int TN>
void launch_tiled(const GemmArgs<typename K::S>& p, hipStream_t stream) {
  const dim3 grid(static_cast<unsigned>((p.N + BN - 1) / BN), static_cast<unsigned>((p.M + BM - 1) / BM), batch_grid(p.batches));
  gemm_tiled<K, BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN), 0, stream>>>(p);
}

// Out stored column-major (unit stride along m): compute the transpose
// instead, out^T = B^T A^T, so that the n index of the kernel (the one the
// threads of a warp walk when writing) is the unit-stride one.
template <typename S>
void prefer_unit_stride_columns(GemmArgs<S>& p) {
  if (!(p.c_sm == 1 && p.c_sn != 1)) return;
  GemmArgs<S> t = p;
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

template <typename K>
int run(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, hipStream_t stream) {
  using S = typename K::S;
  GemmArgs<S> p;
  p.batches = self->sizes[0];
  p.M = self->sizes[1];
  p.K = self->sizes[2];
  p.N = mat2->sizes[2];
  p.a = static_cast<const S*>(self->data);
  p.a_sq = self->strides[0];
  p.a_sm = self->strides[1];
  p.a_sk = self->strides[2];
  p.b = static_cast<const S*>(mat2->data);
  p.b_sq = mat2->strides[0];
  p.b_sk = mat2->strides[1];
  p.b_sn = mat2->strides[2];
  p.c = static_cast<S*>(out->data);
  p.c_sq = out->strides[0];
  p.c_sm = out->strides[1];
  p.c_sn = out->strides[2];
  prefer_unit_stride_columns(p);
  // Walk the unit-stride index (a stride-0 view reads the same element anyway).
  p.a_k_fast = !(p.a_sm == 1 && p.a_sk != 1);
  p.b_n_fast = !(p.b_sk == 1 && p.b_sn != 1);
  int device = 0, cus = 104;
  if (hipGetDevice(&device) != hipSuccess ||
      hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, device) != hipSuccess)
    return KGB_ERR_INVALID;
  const int64_t work = p.batches;  // every batch adds the same tiles
  if (sizeof(typename K::A) == 4 && work * tiles(p.M, p.N, 128, 128) >= cus) launch_tiled<K, 128, 128, 8, 8, 8>(p, stream);
  else if (2 * work * tiles(p.M, p.N, 64, 64) >= cus) launch_tiled<K, 64, 64, 16, 4, 4>(p, stream);
  else launch_tiled<K, 32, 32, 32, 2, 2>(p, stream);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_bmm(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, kgb_stream stream) {
  if (self->rank != 3 || mat2->rank != 3 || out->rank != 3) return KGB_ERR_INVALID;
  if (mat2->sizes[0] != self->sizes[0] || self->sizes[2] != mat2->sizes[1] || out->sizes[0] != self->sizes[0] ||
      out->sizes[1] != self->sizes[1] || out->sizes[2] != mat2->sizes[2])
    return KGB_ERR_INVALID;
  if (self->dtype != out->dtype || mat2->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  if (kgb_numel(out) == 0) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return run<F32>(self, mat2, out, s);
    case KGB_F64: return run<F64>(self, mat2, out, s);
    case KGB_F16: return run<F16>(self, mat2, out, s);
    case KGB_BF16: return run<BF16>(self, mat2, out, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
