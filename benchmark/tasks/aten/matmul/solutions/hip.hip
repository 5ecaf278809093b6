// aten/matmul in HIP: ATen's rank rules over a tiled GEMM.
//
// The operands are reduced to a batch of M x K by K x N products: a 1-D self
// is one row, a 1-D other one column, and the batch dims broadcast (stride 0
// where an operand has size 1 or lacks the dim). When every batch shares one
// other matrix, batch dims that step like rows are merged into M, so a
// [B, S, K] @ [K, N] product is one large GEMM; the remaining batch is grid
// dimension z (grid-strided beyond 65535).
//
// A shared-memory tiled GEMM: each thread holds a TM x TN micro-tile in
// registers, with double-buffered tiles; the largest tile shape that still
// gives every compute unit work is chosen. f16 and bf16 are converted to
// float on the way into shared memory, accumulate in float and are rounded
// once on the way out; f32 accumulates in float, f64 in double. Global loads
// follow whichever stride of a view is 1; a column-major out is computed as
// its transpose so that wavefronts write along its unit stride.
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

// Batch dims (broadcast, after merging): batch q unravels row-major over
// size[], with element strides per operand.
constexpr int kMaxBatchDims = KGB_MAX_RANK;
struct BatchDims {
  int rank;
  int64_t size[kMaxBatchDims], sa[kMaxBatchDims], sb[kMaxBatchDims], sc[kMaxBatchDims];
};

template <typename S>
struct GemmArgs {
  int64_t batches, M, N, K;
  BatchDims batch;
  const S* a;  // element (m, k) of batch q at a[offset_a(q) + m * a_sm + k * a_sk]
  int64_t a_sm, a_sk;
  const S* b;  // element (k, n) at b[offset_b(q) + k * b_sk + n * b_sn]
  int64_t b_sk, b_sn;
  S* c;  // element (m, n) at c[offset_c(q) + m * c_sm + n * c_sn]
  int64_t c_sm, c_sn;
  bool a_k_fast, b_n_fast;  // which index walks memory contiguously
};

struct Offsets {
  int64_t a, b, c;
};
template <typename T>
__device__ __forceinline__ Offsets batch_offsets(const GemmArgs<T>& p, int64_t q) {
  Offsets o{0, 0, 0};
  for (int d = p.batch.rank - 1; d >= 0; --d) {
    const int64_t i = q % p.batch.size[d];
    q /= p.batch.size[d];
    o.a += i * p.batch.sa[d];
    o.b += i * p.batch.sb[d];
    o.c += i * p.batch.sc[d];
  }
  return o;
}

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
    const Offsets off = batch_offsets(p, q);
    const S* a = p.a + off.a;
    const S* b = p.b + off.b;
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
    S* c = p.c + off.c;
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
  for (int d = 0; d < p.batch.rank; ++d) {
    t.batch.sa[d] = p.batch.sb[d];
    t.batch.sb[d] = p.batch.sa[d];
  }
  p = t;
}

int64_t tiles(int64_t M, int64_t N, int64_t bm, int64_t bn) { return ((M + bm - 1) / bm) * ((N + bn - 1) / bn); }

// ATen's rank rules: checks the shapes and describes the product. Batch
// dims (broadcast), then the row dim M as one more dim that does not move
// other: neighbours merge when all three views step through them as one.
template <typename T>
bool make_plan(const kgb_tensor* self, const kgb_tensor* other, const kgb_tensor* out, GemmArgs<T>& p) {
  const int r1 = self->rank, r2 = other->rank;
  if (r1 < 1 || r2 < 1) return false;
  p.K = self->sizes[r1 - 1];
  if ((r2 >= 2 ? other->sizes[r2 - 2] : other->sizes[0]) != p.K) return false;
  const int64_t m = r1 >= 2 ? self->sizes[r1 - 2] : 1;
  p.N = r2 >= 2 ? other->sizes[r2 - 1] : 1;
  const int bs = r1 > 2 ? r1 - 2 : 0, bo = r2 > 2 ? r2 - 2 : 0, br = bs > bo ? bs : bo;
  if (out->rank != br + (r1 >= 2) + (r2 >= 2)) return false;
  if (r1 >= 2 && out->sizes[br] != m) return false;
  if (r2 >= 2 && out->sizes[out->rank - 1] != p.N) return false;
  int64_t size[KGB_MAX_RANK + 1], sa[KGB_MAX_RANK + 1], sb[KGB_MAX_RANK + 1], sc[KGB_MAX_RANK + 1];
  int n = 0;
  for (int d = 0; d <= br; ++d) {
    int64_t z, a_s, b_s, c_s;
    if (d < br) {
      const int ds = d - (br - bs), dob = d - (br - bo);
      const int64_t s = ds >= 0 ? self->sizes[ds] : 1, o = dob >= 0 ? other->sizes[dob] : 1;
      if (s != o && s != 1 && o != 1) return false;
      z = s == 1 ? o : s;
      if (out->sizes[d] != z) return false;
      if (z == 1) continue;  // a size-1 batch dim adds no offset
      a_s = s == 1 ? 0 : self->strides[ds];
      b_s = o == 1 ? 0 : other->strides[dob];
      c_s = out->strides[d];
    } else {
      z = m;
      a_s = r1 >= 2 ? self->strides[r1 - 2] : 0;
      b_s = 0;
      c_s = r1 >= 2 ? out->strides[br] : 0;
    }
    size[n] = z, sa[n] = a_s, sb[n] = b_s, sc[n] = c_s;
    if (n > 0 && sb[n - 1] == 0 && b_s == 0 && sa[n - 1] == a_s * z && sc[n - 1] == c_s * z) {
      size[n - 1] *= z, sa[n - 1] = a_s, sc[n - 1] = c_s;
    } else {
      ++n;
    }
  }
  p.M = size[n - 1];
  p.a_sm = sa[n - 1];
  p.c_sm = sc[n - 1];
  p.a_sk = self->strides[r1 - 1];
  p.b_sk = r2 >= 2 ? other->strides[r2 - 2] : other->strides[0];
  p.b_sn = r2 >= 2 ? other->strides[r2 - 1] : 0;
  p.c_sn = r2 >= 2 ? out->strides[out->rank - 1] : 0;
  p.batch.rank = n - 1;
  p.batches = 1;
  for (int d = 0; d < p.batch.rank; ++d) {
    p.batch.size[d] = size[d];
    p.batch.sa[d] = sa[d];
    p.batch.sb[d] = sb[d];
    p.batch.sc[d] = sc[d];
    p.batches *= size[d];
  }
  return true;
}

template <typename K>
int run(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, hipStream_t stream) {
  using T = typename K::S;
  GemmArgs<T> p;
  if (!make_plan(self, other, out, p)) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;
  p.a = static_cast<const T*>(self->data);
  p.b = static_cast<const T*>(other->data);
  p.c = static_cast<T*>(out->data);
  prefer_unit_stride_columns(p);
  // Walk the unit-stride index (a stride-0 view reads the same element anyway).
  p.a_k_fast = !(p.a_sm == 1 && p.a_sk != 1);
  p.b_n_fast = !(p.b_sk == 1 && p.b_sn != 1);
  int device = 0, sms = 104;
  if (hipGetDevice(&device) != hipSuccess ||
      hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device) != hipSuccess)
    return KGB_ERR_INVALID;
  const int64_t work = p.batches;  // every batch adds the same tiles
  if (sizeof(typename K::A) == 4 && work * tiles(p.M, p.N, 128, 128) >= sms) launch_tiled<K, 128, 128, 8, 8, 8>(p, stream);
  else if (2 * work * tiles(p.M, p.N, 64, 64) >= sms) launch_tiled<K, 64, 64, 16, 4, 4>(p, stream);
  else launch_tiled<K, 32, 32, 32, 2, 2>(p, stream);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_matmul(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype || other->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return run<F32>(self, other, out, s);
    case KGB_F64: return run<F64>(self, other, out, s);
    case KGB_F16: return run<F16>(self, other, out, s);
    case KGB_BF16: return run<BF16>(self, other, out, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
