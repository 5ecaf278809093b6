// blas/csymm in HIP (gfx90a), a port of the CUDA solution: C = alpha * A * B + beta * C (LEFT) or
// alpha * B * A + beta * C (RIGHT), A complex symmetric (no conjugation) of
// which one triangle is stored, column-major, complex float (float2).
//
// A tiled complex GEMM with a symmetric operand: element
// (r, q) of A is fetched from the stored triangle, or from its mirror (q, r)
// for the other one, while a tile is loaded, so the unreferenced triangle is
// never read and nothing is materialised. One block of 16 x 16 threads owns a
// BM x BN tile of C and stages BK-deep slices of both operands in shared
// memory, double-buffered through registers so the next slice's global loads
// are in flight during the FMAs (four per complex product). Loads walk
// whichever index has unit stride. Thread (tx, ty) accumulates rows tx + 16 r
// and columns ty + 16 s, so a wavefront writes consecutive rows of column-major C.
// 64 x 64 tiles, 32 x 32 when 64 x 64 would leave most compute units idle. The complex
// alpha and beta are applied once in the epilogue; beta == 0 never reads C,
// alpha == 0 reads neither A nor B.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kT = 16;  // threads per block side

struct Args {
  const float2* a;
  const float2* b;
  float2* c;
  int64_t M, N, K;
  int64_t a_sm, a_sk;  // left operand (m, k) at a[m * a_sm + k * a_sk] (or its mirror, see sym_offset)
  int64_t b_sk, b_sn;  // right operand (k, n) at b[k * b_sk + n * b_sn]
  int64_t c_sm, c_sn;
  int a_sym, b_sym;            // 0: general; 1 / 2: symmetric, lower / upper triangle stored
  float2 alpha, beta;
  bool read_c;
};

// Offset of element (r, c) of a matrix stored at (s0, s1) strides; for a
// symmetric one outside its stored triangle, the mirror (c, r).
__device__ __forceinline__ int64_t sym_offset(int64_t r, int64_t c, int64_t s0, int64_t s1, int sym) {
  const bool mirror = (sym == 1 && r < c) || (sym == 2 && r > c);
  return mirror ? c * s0 + r * s1 : r * s0 + c * s1;
}

template <int TM, int TN, int BK>
__global__ void __launch_bounds__(kT * kT) csymm_tiled(Args p) {
  constexpr int BM = kT * TM, BN = kT * TN, kThreads = kT * kT;
  constexpr int kLoadsA = BM * BK / kThreads, kLoadsB = BK * BN / kThreads;
  __shared__ float2 As[BK][BM + 1];
  __shared__ float2 Bs[BK][BN + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kT + tx;
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * BM, n0 = static_cast<int64_t>(blockIdx.y) * BN;
  const bool a_m_fast = p.a_sm == 1, b_k_fast = p.b_sk == 1;
  float2 ra[kLoadsA], rb[kLoadsB];

  auto load = [&](int64_t k0) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
      const int e = tid + l * kThreads;
      const int mm = a_m_fast ? e % BM : e / BK, kk = a_m_fast ? e / BM : e % BK;
      const int64_t gm = m0 + mm, gk = k0 + kk;
      ra[l] = (gm < p.M && gk < p.K) ? p.a[sym_offset(gm, gk, p.a_sm, p.a_sk, p.a_sym)] : make_float2(0.0f, 0.0f);
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
      const int e = tid + l * kThreads;
      const int kk = b_k_fast ? e % BK : e / BN, nn = b_k_fast ? e / BK : e % BN;
      const int64_t gk = k0 + kk, gn = n0 + nn;
      rb[l] = (gk < p.K && gn < p.N) ? p.b[sym_offset(gk, gn, p.b_sk, p.b_sn, p.b_sym)] : make_float2(0.0f, 0.0f);
    }
  };
  auto store = [&] {
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

  float2 acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int s = 0; s < TN; ++s) acc[r][s] = make_float2(0.0f, 0.0f);

  const int64_t steps = (p.K + BK - 1) / BK;
  if (steps > 0) load(0);
  for (int64_t st = 0; st < steps; ++st) {
    store();
    __syncthreads();
    if (st + 1 < steps) load((st + 1) * BK);  // in flight during the FMAs below
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float2 fa[TM], fb[TN];
#pragma unroll
      for (int r = 0; r < TM; ++r) fa[r] = As[kk][tx + r * kT];
#pragma unroll
      for (int s = 0; s < TN; ++s) fb[s] = Bs[kk][ty + s * kT];
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int s = 0; s < TN; ++s) {
          acc[r][s].x = fmaf(fa[r].x, fb[s].x, fmaf(-fa[r].y, fb[s].y, acc[r][s].x));
          acc[r][s].y = fmaf(fa[r].x, fb[s].y, fmaf(fa[r].y, fb[s].x, acc[r][s].y));
        }
    }
    __syncthreads();
  }

#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int64_t i = m0 + tx + r * kT;
    if (i >= p.M) continue;
#pragma unroll
    for (int s = 0; s < TN; ++s) {
      const int64_t j = n0 + ty + s * kT;
      if (j >= p.N) continue;
      float2* out = p.c + i * p.c_sm + j * p.c_sn;
      const float2 v = acc[r][s];
      float2 res = make_float2(p.alpha.x * v.x - p.alpha.y * v.y, p.alpha.x * v.y + p.alpha.y * v.x);
      if (p.read_c) {
        const float2 old = *out;
        res.x += p.beta.x * old.x - p.beta.y * old.y;
        res.y += p.beta.x * old.y + p.beta.y * old.x;
      }
      *out = res;
    }
  }
}

template <int TM, int TN, int BK>
hipError_t launch(const Args& p, hipStream_t stream) {
  const int64_t bm = kT * TM, bn = kT * TN;
  const dim3 grid(static_cast<unsigned>((p.M + bm - 1) / bm), static_cast<unsigned>((p.N + bn - 1) / bn));
  csymm_tiled<TM, TN, BK><<<grid, dim3(kT, kT), 0, stream>>>(p);
  return hipGetLastError();
}

}  // namespace

extern "C" int kgb_blas_csymm(int side, int uplo, kgb_complex alpha, const kgb_tensor* A, const kgb_tensor* B,
                              kgb_complex beta, kgb_tensor* C, kgb_stream stream) {
  if (A->dtype != KGB_C64 || B->dtype != KGB_C64 || C->dtype != KGB_C64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2 || (side != 0 && side != 1) || (uplo != 0 && uplo != 1))
    return KGB_ERR_INVALID;
  Args p{};
  p.M = C->sizes[0];
  p.N = C->sizes[1];
  p.K = side ? p.N : p.M;
  if (A->sizes[0] != p.K || A->sizes[1] != p.K || B->sizes[0] != p.M || B->sizes[1] != p.N) return KGB_ERR_INVALID;
  if (p.M == 0 || p.N == 0) return KGB_OK;
  p.alpha = make_float2(static_cast<float>(alpha.re), static_cast<float>(alpha.im));
  p.beta = make_float2(static_cast<float>(beta.re), static_cast<float>(beta.im));
  if (p.alpha.x == 0.0f && p.alpha.y == 0.0f) p.K = 0;  // BLAS: A and B are not read
  p.read_c = p.beta.x != 0.0f || p.beta.y != 0.0f;
  // LEFT: C = A B (a = A symmetric, b = B); RIGHT: C = B A (a = B, b = A symmetric).
  const kgb_tensor* left = side ? B : A;
  const kgb_tensor* right = side ? A : B;
  p.a = static_cast<const float2*>(left->data);
  p.b = static_cast<const float2*>(right->data);
  p.c = static_cast<float2*>(C->data);
  p.a_sm = left->strides[0];
  p.a_sk = left->strides[1];
  p.b_sk = right->strides[0];
  p.b_sn = right->strides[1];
  p.c_sm = C->strides[0];
  p.c_sn = C->strides[1];
  p.a_sym = side ? 0 : 1 + uplo;
  p.b_sym = side ? 1 + uplo : 0;
  int device = 0, sms = 132;
  if (hipGetDevice(&device) != hipSuccess || hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device) != hipSuccess)
    return KGB_ERR_INVALID;
  const int64_t big_tiles = ((p.M + 63) / 64) * ((p.N + 63) / 64);
  hipStream_t s = static_cast<hipStream_t>(stream);
  const hipError_t err = big_tiles >= sms ? launch<4, 4, 8>(p, s) : launch<2, 2, 16>(p, s);
  return err == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
