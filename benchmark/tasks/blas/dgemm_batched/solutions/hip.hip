// blas/dgemm_batched in HIP, a port of the CUDA solution: for every item b,
// C[b] := alpha * op(A[b]) op(B[b]) + beta * C[b] in double, column-major,
// cuBLAS semantics.
//
// The kernel reads the matrices through the device pointer arrays
// (device_data), exactly as cublasDgemmBatched does: blockIdx.z is the item,
// blockIdx.x/y tile its C. One block of 16 x 16 threads owns a BM x BN tile
// (BM = 16 * TM, BN = 16 * TN) and stages BK-deep slices of op(A) and op(B)
// in shared memory, double-buffered through registers so the next slice's
// global loads are in flight during the FMAs; loads walk whichever index has
// unit stride (op N or T) so a wavefront reads consecutive doubles. Thread (tx, ty)
// accumulates rows tx + 16 r and columns ty + 16 s, so a wavefront writes 16
// consecutive rows of column-major C. 32 x 32 tiles for small matrices (many
// small items fill the GPU through the batch), 64 x 64 otherwise.
// beta == 0 never reads C; alpha == 0 or k == 0 reads neither A nor B.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kT = 16;                  // threads per block side
constexpr int64_t kMaxGridZ = 65535;    // items per launch

struct Args {
  const double* const* a;  // device pointer arrays
  const double* const* b;
  double* const* c;
  int64_t item_base, M, N, K;
  int64_t a_sm, a_sk;  // op(A)(m, k) at a[m * a_sm + k * a_sk]
  int64_t b_sk, b_sn;  // op(B)(k, n) at b[k * b_sk + n * b_sn]
  int64_t c_sm, c_sn;
  double alpha, beta;
  bool read_c;
};

template <int TM, int TN, int BK>
__global__ void __launch_bounds__(kT * kT) dgemm_batched_tiled(Args p) {
  constexpr int BM = kT * TM, BN = kT * TN, kThreads = kT * kT;
  constexpr int kLoadsA = BM * BK / kThreads, kLoadsB = BK * BN / kThreads;
  __shared__ double As[BK][BM + 1];
  __shared__ double Bs[BK][BN + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kT + tx;
  const int64_t item = p.item_base + blockIdx.z;
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * BM, n0 = static_cast<int64_t>(blockIdx.y) * BN;
  const double* __restrict__ a = p.a[item];
  const double* __restrict__ b = p.b[item];
  const bool a_m_fast = p.a_sm == 1, b_k_fast = p.b_sk == 1;
  double ra[kLoadsA], rb[kLoadsB];

  auto load = [&](int64_t k0) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
      const int e = tid + l * kThreads;
      const int mm = a_m_fast ? e % BM : e / BK, kk = a_m_fast ? e / BM : e % BK;
      const int64_t gm = m0 + mm, gk = k0 + kk;
      ra[l] = (gm < p.M && gk < p.K) ? a[gm * p.a_sm + gk * p.a_sk] : 0.0;
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
      const int e = tid + l * kThreads;
      const int kk = b_k_fast ? e % BK : e / BN, nn = b_k_fast ? e / BK : e % BN;
      const int64_t gk = k0 + kk, gn = n0 + nn;
      rb[l] = (gk < p.K && gn < p.N) ? b[gk * p.b_sk + gn * p.b_sn] : 0.0;
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

  double acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int s = 0; s < TN; ++s) acc[r][s] = 0.0;

  const int64_t steps = (p.K + BK - 1) / BK;
  if (steps > 0) load(0);
  for (int64_t st = 0; st < steps; ++st) {
    store();
    __syncthreads();
    if (st + 1 < steps) load((st + 1) * BK);  // in flight during the FMAs below
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      double fa[TM], fb[TN];
#pragma unroll
      for (int r = 0; r < TM; ++r) fa[r] = As[kk][tx + r * kT];
#pragma unroll
      for (int s = 0; s < TN; ++s) fb[s] = Bs[kk][ty + s * kT];
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int s = 0; s < TN; ++s) acc[r][s] = fma(fa[r], fb[s], acc[r][s]);
    }
    __syncthreads();
  }

  double* __restrict__ c = p.c[item];
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int64_t i = m0 + tx + r * kT;
    if (i >= p.M) continue;
#pragma unroll
    for (int s = 0; s < TN; ++s) {
      const int64_t j = n0 + ty + s * kT;
      if (j >= p.N) continue;
      double* out = c + i * p.c_sm + j * p.c_sn;
      const double v = p.alpha * acc[r][s];
      *out = p.read_c ? fma(p.beta, *out, v) : v;
    }
  }
}

template <int TM, int TN, int BK>
hipError_t launch(Args p, int64_t batch, hipStream_t stream) {
  const int64_t bm = kT * TM, bn = kT * TN;
  for (int64_t first = 0; first < batch; first += kMaxGridZ) {
    p.item_base = first;
    const int64_t items = batch - first < kMaxGridZ ? batch - first : kMaxGridZ;
    const dim3 grid(static_cast<unsigned>((p.M + bm - 1) / bm), static_cast<unsigned>((p.N + bn - 1) / bn),
                    static_cast<unsigned>(items));
    dgemm_batched_tiled<TM, TN, BK><<<grid, dim3(kT, kT), 0, stream>>>(p);
  }
  return hipGetLastError();
}

}  // namespace

extern "C" int kgb_blas_dgemm_batched(int transa, int transb, double alpha, const kgb_tensor_list* Aarray,
                                      const kgb_tensor_list* Barray, double beta, kgb_tensor_list* Carray,
                                      kgb_stream stream) {
  const int64_t batch = Carray->count;
  if (Aarray->count != batch || Barray->count != batch) return KGB_ERR_INVALID;
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  if (!Aarray->device_data || !Barray->device_data || !Carray->device_data) return KGB_ERR_INVALID;
  const kgb_tensor* A = Aarray->items[0];
  const kgb_tensor* B = Barray->items[0];
  const kgb_tensor* C = Carray->items[0];
  if (A->dtype != KGB_F64 || B->dtype != KGB_F64 || C->dtype != KGB_F64) return KGB_ERR_UNSUPPORTED;
  if (A->rank != 2 || B->rank != 2 || C->rank != 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;  // op C of a real matrix is its transpose
  Args p{};
  p.M = C->sizes[0];
  p.N = C->sizes[1];
  p.K = ta ? A->sizes[0] : A->sizes[1];
  if ((ta ? A->sizes[1] : A->sizes[0]) != p.M || (tb ? B->sizes[1] : B->sizes[0]) != p.K ||
      (tb ? B->sizes[0] : B->sizes[1]) != p.N)
    return KGB_ERR_INVALID;
  if (p.M == 0 || p.N == 0) return KGB_OK;
  if (alpha == 0.0) p.K = 0;  // BLAS: A and B are not read
  p.a = reinterpret_cast<const double* const*>(Aarray->device_data);
  p.b = reinterpret_cast<const double* const*>(Barray->device_data);
  p.c = reinterpret_cast<double* const*>(Carray->device_data);
  // Every item of a list shares its strides (one lda, ldb, ldc per call).
  p.a_sm = ta ? A->strides[1] : A->strides[0];
  p.a_sk = ta ? A->strides[0] : A->strides[1];
  p.b_sk = tb ? B->strides[1] : B->strides[0];
  p.b_sn = tb ? B->strides[0] : B->strides[1];
  p.c_sm = C->strides[0];
  p.c_sn = C->strides[1];
  p.alpha = alpha;
  p.beta = beta;
  p.read_c = beta != 0.0;
  hipStream_t s = static_cast<hipStream_t>(stream);
  const hipError_t err = (p.M <= 32 && p.N <= 32) ? launch<2, 2, 16>(p, batch, s) : launch<4, 4, 16>(p, batch, s);
  return err == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}
