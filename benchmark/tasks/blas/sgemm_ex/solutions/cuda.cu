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
// f16 and bf16 inputs with k >= 16 run on tensor cores instead (gemm_tc
// below: WMMA MMAs with float accumulators, exact products of the 16-bit
// inputs, which the task allows; not TF32); f32 and i8 inputs and k < 16
// keep the SIMT kernel.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <cuda_bf16.h>
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
constexpr int64_t kMaxGridZ = 65535;  // items per launch

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
  bool a_vec, b_vec;  // tensor-core staging: 16-byte vector loads along the fast index
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

// ---- Tensor-core path: f16 / bf16 inputs, float accumulation ----------------
// WMMA 16 x 16 x 16 MMAs. The block's WM x WN warps each own a 32 x 64 piece of
// C (2 x 4 float accumulators), so a block tile is (32 WM) x (64 WN). BK-deep
// slices of op(A) and op(B) are staged in shared memory in the layout their
// global storage has (the fragment layout is a template argument, so a
// transpose costs nothing), 8 elements (16 bytes) per load where the fast
// index is contiguous, aligned and in range, element by element with zeros
// outside the matrix otherwise, double-buffered through registers. The
// epilogue stages one accumulator per warp through shared memory and applies
// alpha and beta in float, rounding once into C's type.
namespace wmma = nvcuda::wmma;

constexpr int kTcBK = 32;    // K depth of a staged slice (two MMA steps)
constexpr int kTcPad = 8;    // 16 bytes per shared row: keeps 16-byte alignment, spreads the banks
constexpr int kTcMinK = 16;  // below one MMA depth the SIMT kernel does as well
constexpr int kTcFM = 2, kTcFN = 4;  // accumulators per warp (rows x columns of 16 x 16)
constexpr int64_t kTcBigGrid = 132;  // blocks of the big tile that fill one wave of SMs

// The WMMA element type of a 16-bit storage type; other inputs take the SIMT kernel.
template <class In>
struct TcFrag {
  static constexpr bool ok = false;
};
template <>
struct TcFrag<__half> {
  static constexpr bool ok = true;
  typedef __half type;
};
template <>
struct TcFrag<Bf16> {
  static constexpr bool ok = true;
  typedef __nv_bfloat16 type;
};

template <bool First, class X, class Y>
struct Pick {
  typedef X type;
};
template <class X, class Y>
struct Pick<false, X, Y> {
  typedef Y type;
};

__device__ __forceinline__ unsigned pack2(unsigned short lo, unsigned short hi) {
  return static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16);
}

// The element-by-element side of fetch8 (edge tiles, unaligned or strided
// views): out of line, so the common vector path keeps its registers.
__device__ __noinline__ uint4 load8_scalar(const unsigned short* p, int64_t fast_stride, int64_t valid) {
  unsigned short e[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) e[i] = i < valid ? p[i * fast_stride] : static_cast<unsigned short>(0);
  uint4 r;
  r.x = pack2(e[0], e[1]);
  r.y = pack2(e[2], e[3]);
  r.z = pack2(e[4], e[5]);
  r.w = pack2(e[6], e[7]);
  return r;
}

// Eight 16-bit elements along an operand's fast index, starting at (fast,
// slow); elements outside [0, fast_n) x [0, slow_n) read as zero. `vec`: the
// fast stride is 1 and rows start 16-byte aligned, so a full vector is one load.
__device__ __forceinline__ uint4 fetch8(const unsigned short* base, int64_t fast_stride, int64_t slow_stride,
                                        int64_t fast, int64_t slow, int64_t fast_n, int64_t slow_n, bool vec) {
  const int64_t left = fast_n - fast;
  const int64_t valid = slow < slow_n ? (left < 8 ? left : 8) : 0;
  const unsigned short* p = base + fast * fast_stride + slow * slow_stride;  // read only where valid
  if (vec && valid == 8) return *reinterpret_cast<const uint4*>(p);
  return load8_scalar(p, fast_stride, valid);
}

// A slice of op(A) (x = m) or op(B) (x = n) is staged as rows of its
// contiguous index: (x, k) rows when KFAST (k contiguous), (k, x) rows
// otherwise. Vector v of the slice (8 elements of one row) is read from
// global memory here, BX being the tile's x extent...
template <bool KFAST, int BX>
__device__ __forceinline__ uint4 fetch_slice_vector(const unsigned short* g, int v, int64_t x_stride, int64_t k_stride,
                                                    int64_t x0, int64_t k0, int64_t x_n, int64_t k_n, bool vec) {
  if (KFAST) return fetch8(g, k_stride, x_stride, k0 + v % (kTcBK / 8) * 8, x0 + v / (kTcBK / 8), k_n, x_n, vec);
  return fetch8(g, x_stride, k_stride, x0 + v % (BX / 8) * 8, k0 + v / (BX / 8), x_n, k_n, vec);
}

// ... and stored at this shared offset (row * LD + position in the row).
template <bool KFAST, int BX, int LD>
__device__ __forceinline__ int slice_offset(int v) {
  return KFAST ? v / (kTcBK / 8) * LD + v % (kTcBK / 8) * 8 : v / (BX / 8) * LD + v % (BX / 8) * 8;
}

// A_KFAST: op(A)'s k index is the contiguous one (op T/C); B_KFAST: op(B)'s
// (op N).
template <class In, class Out, int WM, int WN, bool A_KFAST, bool B_KFAST>
__global__ void __launch_bounds__(32 * WM * WN) gemm_tc(Args<In, Out> p) {
  constexpr int BM = 32 * WM, BN = 64 * WN, kThreads = 32 * WM * WN;
  constexpr int kLdA = A_KFAST ? kTcBK + kTcPad : BM + kTcPad;  // shared row lengths (elements)
  constexpr int kLdB = B_KFAST ? kTcBK + kTcPad : BN + kTcPad;
  constexpr int kSizeA = A_KFAST ? BM * kLdA : kTcBK * kLdA;
  constexpr int kSizeB = B_KFAST ? BN * kLdB : kTcBK * kLdB;
  constexpr int kVecA = BM * kTcBK / 8 / kThreads, kVecB = kTcBK * BN / 8 / kThreads;
  static_assert(kVecA * 8 * kThreads == BM * kTcBK && kVecB * 8 * kThreads == kTcBK * BN, "whole vectors per thread");
  __shared__ __align__(32) unsigned short As[kSizeA];
  __shared__ __align__(32) unsigned short Bs[kSizeB];
  __shared__ __align__(32) float Cs[WM * WN][16 * 16];
  typedef typename TcFrag<In>::type T;
  typedef typename Pick<A_KFAST, wmma::row_major, wmma::col_major>::type LayoutA;
  typedef typename Pick<B_KFAST, wmma::col_major, wmma::row_major>::type LayoutB;

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp % WM, wn = warp / WM;
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * BM, n0 = static_cast<int64_t>(blockIdx.y) * BN;
  const In* a = p.a;
  const In* b = p.b;
  const unsigned short* ga = reinterpret_cast<const unsigned short*>(a);
  const unsigned short* gb = reinterpret_cast<const unsigned short*>(b);
  const bool a_vec = p.a_vec && (reinterpret_cast<uintptr_t>(ga) & 15) == 0;
  const bool b_vec = p.b_vec && (reinterpret_cast<uintptr_t>(gb) & 15) == 0;
  uint4 ra[kVecA], rb[kVecB];

  auto load_slice = [&](int64_t k0) {
#pragma unroll
    for (int l = 0; l < kVecA; ++l)
      ra[l] = fetch_slice_vector<A_KFAST, BM>(ga, tid + l * kThreads, p.a_sm, p.a_sk, m0, k0, p.M, p.K, a_vec);
#pragma unroll
    for (int l = 0; l < kVecB; ++l)
      rb[l] = fetch_slice_vector<B_KFAST, BN>(gb, tid + l * kThreads, p.b_sn, p.b_sk, n0, k0, p.N, p.K, b_vec);
  };
  auto store_slice = [&] {
#pragma unroll
    for (int l = 0; l < kVecA; ++l)
      *reinterpret_cast<uint4*>(As + slice_offset<A_KFAST, BM, kLdA>(tid + l * kThreads)) = ra[l];
#pragma unroll
    for (int l = 0; l < kVecB; ++l)
      *reinterpret_cast<uint4*>(Bs + slice_offset<B_KFAST, BN, kLdB>(tid + l * kThreads)) = rb[l];
  };

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kTcFM][kTcFN];
#pragma unroll
  for (int i = 0; i < kTcFM; ++i)
#pragma unroll
    for (int j = 0; j < kTcFN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  const int64_t steps = (p.K + kTcBK - 1) / kTcBK;
  if (steps > 0) load_slice(0);
  for (int64_t st = 0; st < steps; ++st) {
    store_slice();
    __syncthreads();
    if (st + 1 < steps) load_slice((st + 1) * kTcBK);  // in flight during the MMAs below
#pragma unroll
    for (int kk = 0; kk < kTcBK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, LayoutA> fa[kTcFM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LayoutB> fb[kTcFN];
#pragma unroll
      for (int i = 0; i < kTcFM; ++i) {
        const int mm = wm * 32 + i * 16;
        wmma::load_matrix_sync(fa[i], reinterpret_cast<const T*>(As + (A_KFAST ? mm * kLdA + kk : kk * kLdA + mm)), kLdA);
      }
#pragma unroll
      for (int j = 0; j < kTcFN; ++j) {
        const int nn = wn * 64 + j * 16;
        wmma::load_matrix_sync(fb[j], reinterpret_cast<const T*>(Bs + (B_KFAST ? nn * kLdB + kk : kk * kLdB + nn)), kLdB);
      }
#pragma unroll
      for (int i = 0; i < kTcFM; ++i)
#pragma unroll
        for (int j = 0; j < kTcFN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }

  Out* c = p.c;
  float* staged = Cs[warp];
#pragma unroll
  for (int i = 0; i < kTcFM; ++i)
#pragma unroll
    for (int j = 0; j < kTcFN; ++j) {
      wmma::store_matrix_sync(staged, acc[i][j], 16, wmma::mem_col_major);
      __syncwarp();
      // Lanes take consecutive rows of a column: each store instruction writes two 32-byte column pieces.
#pragma unroll
      for (int t = 0; t < 8; ++t) {
        const int e = lane + 32 * t;
        const int64_t gi = m0 + wm * 32 + i * 16 + e % 16, gj = n0 + wn * 64 + j * 16 + e / 16;
        if (gi >= p.M || gj >= p.N) continue;
        Out* out = c + gi * p.c_sm + gj * p.c_sn;
        Acc v = mul(p.alpha, staged[e]);
        if (p.read_c) v = add(v, mul(p.beta, load(out, Real(1))));
        store(out, v);
      }
      __syncwarp();
    }
}

template <class In, class Out, int WM, int WN, bool A_KFAST, bool B_KFAST>
cudaError_t launch_tc_tiles(Args<In, Out> p, int64_t batch, cudaStream_t stream) {
  const int64_t bm = 32 * WM, bn = 64 * WN;
  for (int64_t first = 0; first < batch; first += kMaxGridZ) {
    const int64_t items = batch - first < kMaxGridZ ? batch - first : kMaxGridZ;
    const dim3 grid(static_cast<unsigned>((p.M + bm - 1) / bm), static_cast<unsigned>((p.N + bn - 1) / bn),
                    static_cast<unsigned>(items));
    gemm_tc<In, Out, WM, WN, A_KFAST, B_KFAST><<<grid, 32 * WM * WN, 0, stream>>>(p);
  }
  return cudaGetLastError();
}

// Picks the staging layouts from the strides and the tile from the grid size:
// 128 x 128 tiles (8 warps) once they fill a wave of SMs, 64 x 64 (2 warps) below.
template <class In, class Out, int WM, int WN>
cudaError_t launch_tc_layout(Args<In, Out> p, int64_t batch, cudaStream_t stream) {
  const bool a_kfast = p.a_sm != 1, b_kfast = p.b_sk == 1;
  p.a_vec = a_kfast ? p.a_sk == 1 && p.a_sm % 8 == 0 : p.a_sk % 8 == 0;
  p.b_vec = b_kfast ? p.b_sn % 8 == 0 : p.b_sn == 1 && p.b_sk % 8 == 0;
  if (a_kfast)
    return b_kfast ? launch_tc_tiles<In, Out, WM, WN, true, true>(p, batch, stream)
                   : launch_tc_tiles<In, Out, WM, WN, true, false>(p, batch, stream);
  return b_kfast ? launch_tc_tiles<In, Out, WM, WN, false, true>(p, batch, stream)
                 : launch_tc_tiles<In, Out, WM, WN, false, false>(p, batch, stream);
}

template <class In, class Out>
cudaError_t launch_tc(Args<In, Out> p, int64_t batch, cudaStream_t stream) {
  const int64_t big_blocks = (p.M + 127) / 128 * ((p.N + 127) / 128) * batch;
  return p.M > 64 && p.N > 64 && big_blocks >= kTcBigGrid ? launch_tc_layout<In, Out, 4, 2>(p, batch, stream)
                                                          : launch_tc_layout<In, Out, 2, 1>(p, batch, stream);
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
  if constexpr (TcFrag<In>::ok) {
    if (p.K >= kTcMinK) return launch_tc<In, Out>(p, 1, s) == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
  }
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
