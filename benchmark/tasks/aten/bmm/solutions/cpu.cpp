// aten/bmm on the CPU: out[b] = self[b] @ mat2[b] for every batch b.
//
// A packed, cache-blocked GEMM over the whole batch: the output tiles of all
// batches are shared out among the OpenMP threads in one parallel region.
// For each K block (KC deep) a thread packs both operands of its tile into
// contiguous micro-panels in the accumulation type (MR rows of A, NR columns
// of B), which also absorbs arbitrary strides (transposed, padded, stepped,
// stride-0 views) and the f16/bf16 -> float conversion. A register-blocked
// MR x NR micro-kernel (AVX2/FMA when available, a portable loop otherwise)
// then sweeps the packed panels. f32/f64
// results with unit column stride are accumulated directly in out;
// everything else goes through a float/double workspace and is rounded once
// at the end.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define KGB_BMM_AVX2 1
#endif

namespace {

// Element access per storage dtype: Acc is the accumulation type.
struct F32 { using S = float; using Acc = float; static Acc get(const S* p) { return *p; } static void put(S* p, Acc v) { *p = v; } };
struct F64 { using S = double; using Acc = double; static Acc get(const S* p) { return *p; } static void put(S* p, Acc v) { *p = v; } };
struct F16 { using S = uint16_t; using Acc = float;
  static Acc get(const S* p) { return kgb_f16_to_float(*p); } static void put(S* p, Acc v) { *p = kgb_float_to_f16(v); } };
struct BF16 { using S = uint16_t; using Acc = float;
  static Acc get(const S* p) { return kgb_bf16_to_float(*p); } static void put(S* p, Acc v) { *p = kgb_float_to_bf16(v); } };

// Blocking. MR x NR is the register tile (6 x 16 floats / 6 x 8 doubles = 12
// AVX2 accumulators); a packed B micro-panel (KC x NR) stays in L1 while an
// MC x KC block of packed A sits in L2.
constexpr int64_t MR = 6;
constexpr int64_t KC = 256;
constexpr int64_t MC = 96;   // multiple of MR
constexpr int64_t NB = 256;  // columns per parallel tile, multiple of every NR

template <class Acc> struct Tile;
template <> struct Tile<float> { static constexpr int64_t NR = 16; };
template <> struct Tile<double> { static constexpr int64_t NR = 8; };

// C[i, j] (i < mr, j < nr) = acc[i][j] + beta * C[i, j]; beta == 0 never
// reads C (out arrives holding garbage).
template <class Acc, int64_t NR>
inline void store_tile(const Acc* acc, Acc* c, int64_t ldc, int64_t mr, int64_t nr, Acc beta) {
  for (int64_t i = 0; i < mr; ++i) {
    Acc* row = c + i * ldc;
    if (beta == Acc(0))
      for (int64_t j = 0; j < nr; ++j) row[j] = acc[i * NR + j];
    else
      for (int64_t j = 0; j < nr; ++j) row[j] = acc[i * NR + j] + beta * row[j];
  }
}

// Portable micro-kernel: C tile = Ap^T (MR x kc) * Bp (kc x NR), with GCC's
// generic 16-byte vectors (NEON on aarch64, SSE on plain x86-64, scalar code
// elsewhere). The MR x NR accumulators are a local array the compiler keeps in
// registers: it is only read element by element after the loop.
template <class Acc, int64_t NR>
inline void micro_generic(int64_t kc, const Acc* ap, const Acc* bp, Acc* c, int64_t ldc, int64_t mr, int64_t nr,
                          Acc beta) {
  typedef Acc V __attribute__((vector_size(16)));
  constexpr int64_t W = 16 / sizeof(Acc), NV = NR / W;
  V acc[MR][NV];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q) acc[i][q] = V{};
  for (int64_t p = 0; p < kc; ++p) {
    V b[NV];
    for (int64_t q = 0; q < NV; ++q) memcpy(&b[q], bp + p * NR + q * W, sizeof(V));
    for (int64_t i = 0; i < MR; ++i) {
      const Acc a = ap[p * MR + i];
      for (int64_t q = 0; q < NV; ++q) acc[i][q] += a * b[q];
    }
  }
  Acc tmp[MR * NR];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q)
      for (int64_t l = 0; l < W; ++l) tmp[i * NR + q * W + l] = acc[i][q][l];
  store_tile<Acc, NR>(tmp, c, ldc, mr, nr, beta);
}

#if KGB_BMM_AVX2
// The 12 accumulators are named variables (not an array) so that the
// compiler keeps all of them in ymm registers across the k loop.
#define KGB_BMM_KERNEL(VEC, LOAD, BCAST, FMA, STOREU, SETZERO, SET1, W)                              \
  VEC c00 = SETZERO(), c01 = SETZERO(), c10 = SETZERO(), c11 = SETZERO(), c20 = SETZERO(), c21 = SETZERO(); \
  VEC c30 = SETZERO(), c31 = SETZERO(), c40 = SETZERO(), c41 = SETZERO(), c50 = SETZERO(), c51 = SETZERO(); \
  for (int64_t p = 0; p < kc; ++p) {                                                                       \
    const VEC b0 = LOAD(bp), b1 = LOAD(bp + W);                                                            \
    VEC a = BCAST(ap + 0); c00 = FMA(a, b0, c00); c01 = FMA(a, b1, c01);                                   \
    a = BCAST(ap + 1); c10 = FMA(a, b0, c10); c11 = FMA(a, b1, c11);                                       \
    a = BCAST(ap + 2); c20 = FMA(a, b0, c20); c21 = FMA(a, b1, c21);                                       \
    a = BCAST(ap + 3); c30 = FMA(a, b0, c30); c31 = FMA(a, b1, c31);                                       \
    a = BCAST(ap + 4); c40 = FMA(a, b0, c40); c41 = FMA(a, b1, c41);                                       \
    a = BCAST(ap + 5); c50 = FMA(a, b0, c50); c51 = FMA(a, b1, c51);                                       \
    ap += MR;                                                                                              \
    bp += 2 * W;                                                                                           \
  }                                                                                                        \
  const VEC acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};          \
  if (mr == MR && nr == 2 * W) {                                                                           \
    const VEC vb = SET1(beta);                                                                             \
    for (int i = 0; i < MR; ++i) {                                                                         \
      auto* row = c + i * ldc;                                                                             \
      if (beta == 0) {                                                                                     \
        STOREU(row, acc[i][0]);                                                                            \
        STOREU(row + W, acc[i][1]);                                                                        \
      } else {                                                                                             \
        STOREU(row, FMA(vb, LOAD(row), acc[i][0]));                                                        \
        STOREU(row + W, FMA(vb, LOAD(row + W), acc[i][1]));                                                \
      }                                                                                                    \
    }                                                                                                      \
    return;                                                                                                \
  }

inline void micro(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc, int64_t mr, int64_t nr,
                  float beta) {
  KGB_BMM_KERNEL(__m256, _mm256_loadu_ps, _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_storeu_ps,
                _mm256_setzero_ps, _mm256_set1_ps, 8)
  alignas(32) float tmp[MR * 16];
  for (int i = 0; i < MR; ++i) {
    _mm256_store_ps(tmp + i * 16, acc[i][0]);
    _mm256_store_ps(tmp + i * 16 + 8, acc[i][1]);
  }
  store_tile<float, 16>(tmp, c, ldc, mr, nr, beta);
}

inline void micro(int64_t kc, const double* ap, const double* bp, double* c, int64_t ldc, int64_t mr, int64_t nr,
                  double beta) {
  KGB_BMM_KERNEL(__m256d, _mm256_loadu_pd, _mm256_broadcast_sd, _mm256_fmadd_pd, _mm256_storeu_pd,
                _mm256_setzero_pd, _mm256_set1_pd, 4)
  alignas(32) double tmp[MR * 8];
  for (int i = 0; i < MR; ++i) {
    _mm256_store_pd(tmp + i * 8, acc[i][0]);
    _mm256_store_pd(tmp + i * 8 + 4, acc[i][1]);
  }
  store_tile<double, 8>(tmp, c, ldc, mr, nr, beta);
}
#undef KGB_BMM_KERNEL
#else
template <class Acc>
inline void micro(int64_t kc, const Acc* ap, const Acc* bp, Acc* c, int64_t ldc, int64_t mr, int64_t nr, Acc beta) {
  micro_generic<Acc, Tile<Acc>::NR>(kc, ap, bp, c, ldc, mr, nr, beta);
}
#endif

// Packs rows [0, rows) x k-range of A (element (i, p) at a[row[i] + p*cs])
// into an MR-row micro-panel, p-major; rows past `rows` are zero.
template <class E>
void pack_a(const typename E::S* a, const int64_t* row, int64_t cs, int64_t rows, int64_t kc, typename E::Acc* dst) {
  using Acc = typename E::Acc;
  if (rows == MR && cs == 1) {
    for (int64_t i = 0; i < MR; ++i)
      for (int64_t p = 0; p < kc; ++p) dst[p * MR + i] = E::get(a + row[i] + p);
    return;
  }
  for (int64_t p = 0; p < kc; ++p)
    for (int64_t i = 0; i < MR; ++i) dst[p * MR + i] = i < rows ? E::get(a + row[i] + p * cs) : Acc(0);
}

// Packs a k-range x columns [0, cols) of B into an NR-column micro-panel.
template <class E, int64_t NR>
void pack_b(const typename E::S* b, int64_t rs, int64_t cs, int64_t cols, int64_t kc, typename E::Acc* dst) {
  using Acc = typename E::Acc;
  if (cols == NR && cs == 1) {
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t j = 0; j < NR; ++j) dst[p * NR + j] = E::get(b + p * rs + j);
    return;
  }
  if (rs == 1) {  // weight^T of a row-major weight: each column is contiguous
    for (int64_t j = 0; j < NR; ++j)
      for (int64_t p = 0; p < kc; ++p) dst[p * NR + j] = j < cols ? E::get(b + j * cs + p) : Acc(0);
    return;
  }
  for (int64_t p = 0; p < kc; ++p)
    for (int64_t j = 0; j < NR; ++j) dst[p * NR + j] = j < cols ? E::get(b + p * rs + j * cs) : Acc(0);
}

// One product of a batch: C (m x n, row pitch ldc, unit column stride,
// accumulation type) = A @ B, where A(i, p) is a[arow[i] + p*acs] and B(p, j)
// is b[p*brs + j*bcs].
template <class E>
struct Product {
  const typename E::S* a;
  const int64_t* arow;
  int64_t acs;
  const typename E::S* b;
  int64_t brs, bcs;
  typename E::Acc* c;
  int64_t ldc;
};

// Every product of the batch, cut into MC x NB output tiles that the OpenMP
// threads take one at a time in one parallel region. Each thread packs the
// A and B blocks of its own tiles (K blocks of KC) into private buffers, so
// the threads never wait for each other until the region ends (on a busy
// host every barrier can cost a scheduler time slice), and a thread that
// runs while another is descheduled takes over the remaining tiles.
template <class E>
void gemm_batch(int64_t m, int64_t n, int64_t k, const std::vector<Product<E>>& products) {
  using Acc = typename E::Acc;
  constexpr int64_t NR = Tile<Acc>::NR;
  if (m == 0 || n == 0 || products.empty()) return;
  const int64_t m_blocks = (m + MC - 1) / MC, n_blocks = (n + NB - 1) / NB;
  const int64_t per_product = m_blocks * n_blocks;
  const int64_t tiles = per_product * static_cast<int64_t>(products.size());
#pragma omp parallel
  {
    std::vector<Acc> apack(static_cast<size_t>(MC * KC)), bpack(static_cast<size_t>(NB * KC));
#pragma omp for schedule(dynamic, 1)
    for (int64_t t = 0; t < tiles; ++t) {
      const Product<E>& pr = products[static_cast<size_t>(t / per_product)];
      const int64_t ib = (t % per_product) / n_blocks, jb = t % n_blocks;
      const int64_t i0 = ib * MC, mc = std::min(MC, m - i0), j0 = jb * NB, nb = std::min(NB, n - j0);
      if (k == 0) {  // an empty sum: zeros
        for (int64_t i = 0; i < mc; ++i)
          for (int64_t j = 0; j < nb; ++j) pr.c[(i0 + i) * pr.ldc + j0 + j] = Acc(0);
        continue;
      }
      for (int64_t pc = 0; pc < k; pc += KC) {
        const int64_t kc = std::min(KC, k - pc);
        const Acc beta = pc == 0 ? Acc(0) : Acc(1);  // first K block overwrites, later ones accumulate
        for (int64_t jr = 0; jr < nb; jr += NR)
          pack_b<E, NR>(pr.b + pc * pr.brs + (j0 + jr) * pr.bcs, pr.brs, pr.bcs, std::min(NR, nb - jr), kc,
                        bpack.data() + jr * kc);
        for (int64_t ir = 0; ir < mc; ir += MR)
          pack_a<E>(pr.a + pc * pr.acs, pr.arow + i0 + ir, pr.acs, std::min(MR, mc - ir), kc, apack.data() + ir * kc);
        for (int64_t jr = 0; jr < nb; jr += NR)
          for (int64_t ir = 0; ir < mc; ir += MR)
            micro(kc, apack.data() + ir * kc, bpack.data() + jr * kc, pr.c + (i0 + ir) * pr.ldc + j0 + jr, pr.ldc,
                  std::min(MR, mc - ir), std::min(NR, nb - jr), beta);
      }
    }
  }
}

template <class E>
int run(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out) {
  using Acc = typename E::Acc;
  using S = typename E::S;
  const int64_t batch = self->sizes[0], m = self->sizes[1], k = self->sizes[2], n = mat2->sizes[2];
  if (batch == 0 || m == 0 || n == 0) return KGB_OK;
  const S* a = static_cast<const S*>(self->data);
  const S* b = static_cast<const S*>(mat2->data);
  S* o = static_cast<S*>(out->data);
  const int64_t os1 = out->strides[1], os2 = out->strides[2];
  std::vector<int64_t> arow(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) arow[static_cast<size_t>(i)] = i * self->strides[1];
  // Same storage and accumulation type with unit column stride: accumulate
  // in out itself; otherwise in a workspace rounded into out afterwards.
  const bool direct = std::is_same<S, Acc>::value && (os2 == 1 || n == 1);
  std::vector<Acc> work(direct ? 0 : static_cast<size_t>(batch * m * n));
  std::vector<Product<E>> products;
  for (int64_t q = 0; q < batch; ++q) {
    Acc* c = direct ? reinterpret_cast<Acc*>(o + q * out->strides[0]) : work.data() + q * m * n;
    products.push_back({a + q * self->strides[0], arow.data(), self->strides[2], b + q * mat2->strides[0],
                        mat2->strides[1], mat2->strides[2], c, direct ? os1 : n});
  }
  gemm_batch<E>(m, n, k, products);
  if (direct) return KGB_OK;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < batch * m; ++r) {
    const int64_t q = r / m, i = r % m;
    S* dst = o + q * out->strides[0] + i * os1;
    const Acc* src = work.data() + r * n;
    for (int64_t j = 0; j < n; ++j) E::put(dst + j * os2, src[j]);
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_bmm(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->rank != 3 || mat2->rank != 3 || out->rank != 3) return KGB_ERR_INVALID;
  if (mat2->sizes[0] != self->sizes[0] || self->sizes[2] != mat2->sizes[1] || out->sizes[0] != self->sizes[0] ||
      out->sizes[1] != self->sizes[1] || out->sizes[2] != mat2->sizes[2])
    return KGB_ERR_INVALID;
  if (self->dtype != out->dtype || mat2->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  switch (out->dtype) {
    case KGB_F32: return run<F32>(self, mat2, out);
    case KGB_F64: return run<F64>(self, mat2, out);
    case KGB_F16: return run<F16>(self, mat2, out);
    case KGB_BF16: return run<BF16>(self, mat2, out);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
