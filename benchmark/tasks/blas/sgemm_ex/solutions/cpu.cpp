// blas/sgemm_ex on the CPU (cublasSgemmEx): C := alpha * op(A) op(B) + beta * C
// A and B f32, f16, bf16 or i8, C f32 (or the inputs' f16 / bf16), float compute, column-major, op C = op T.
//
// Column-major C (m x n) is the row-major matrix C^T (n x m), and
// C^T = op(B)^T op(A)^T, so every product runs as a row-major GEMM on
// transposed views: only strides are swapped, op T / op C are free. The work
// is a list of units, blocks of MC rows of C^T, spread over the OpenMP
// threads with dynamic scheduling. A unit packs KC-deep slices of its operands
// into contiguous micro-panels (absorbing any leading dimension, transpose
// or conversion) and sweeps them with an MR x NR register-blocked micro-kernel
// on 64-byte (AVX-512) or 32-byte vectors, accumulating in a per-thread
// float workspace that holds the unit's rows of C^T. Only when the whole k
// is summed does the epilogue write C := alpha * acc + beta * C, once per
// element (beta == 0 never reads C; alpha == 0 or k == 0 reads neither A nor
// B).
// A and B share one storage type (f32, f16, bf16 or i8) and C has its own
// (f32, or the inputs' f16 / bf16): the core is a template over both,
// instantiated for the six combinations cublasSgemmEx takes. 16-bit and i8
// elements are widened exactly to float while packing; C is read and
// rounded (to nearest even) once, in the epilogue.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

typedef float Real;  // compute type
// Storage types: f32 is float, i8 int8_t; the 16-bit floats are bit patterns
// told apart by their wrapper type.
struct F16 {
  uint16_t bits;
};
struct BF16 {
  uint16_t bits;
};
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;  // AVX-512
#else
constexpr int kVectorBytes = 32;  // AVX2, or two 16-byte halves elsewhere
#endif
typedef Real V __attribute__((vector_size(kVectorBytes)));

constexpr int64_t W = kVectorBytes / sizeof(Real);  // lanes of V
constexpr int64_t MR = 6;                   // register tile rows
constexpr int64_t NV = 2;                   // vectors per register tile row
constexpr int64_t NR = NV * W;              // register tile columns
constexpr int64_t kPlanes = 1;
constexpr int64_t KC = 16384 / (NR * kPlanes * sizeof(Real));  // slice depth: a 16 KB B micro-panel stays in L1
constexpr int64_t MC = 192;                 // rows of C^T per work unit (a multiple of MR)
constexpr int64_t NC = 1024;                // columns of C^T packed at once (a multiple of NR)

inline Real load(const float* p) { return *p; }
inline Real load(const F16* p) { return kgb_f16_to_float(p->bits); }
inline Real load(const BF16* p) { return kgb_bf16_to_float(p->bits); }
inline Real load(const int8_t* p) { return static_cast<Real>(*p); }  // exact
inline void store(float* p, Real v) { *p = v; }
inline void store(F16* p, Real v) { p->bits = kgb_float_to_f16(v); }    // round to nearest even
inline void store(BF16* p, Real v) { p->bits = kgb_float_to_bf16(v); }  // round to nearest even

// A strided matrix: element (r, q) at data[r * rs + q * cs].
template <class Elem>
struct View {
  const Elem* data;
  int64_t rs, cs;
};

// Packs element (r, q) of `x` into plane slot(s) `at` of a panel whose planes
// are `plane` values apart; zero outside the matrix.
template <class Elem>
inline void pack_one(const View<Elem>& x, int64_t r, int64_t q, bool inside, Real* at, int64_t plane) {
  (void)plane;
  *at = inside ? load(x.data + r * x.rs + q * x.cs) : Real(0);
}

// MR rows x kc of `l` from (r0, p0) into a p-major micro-panel (rows past
// `rows` are zero), walking whichever index has unit stride.
template <class Elem>
void pack_rows(const View<Elem>& l, int64_t r0, int64_t p0, int64_t rows, int64_t kc, Real* dst) {
  if (l.rs == 1) {
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t i = 0; i < MR; ++i) pack_one(l, r0 + i, p0 + p, i < rows, dst + p * MR * kPlanes + i, MR);
  } else {
    for (int64_t i = 0; i < MR; ++i)
      for (int64_t p = 0; p < kc; ++p) pack_one(l, r0 + i, p0 + p, i < rows, dst + p * MR * kPlanes + i, MR);
  }
}

// kc x NR of `r` from (p0, q0) into a p-major micro-panel (columns past
// `cols` are zero).
template <class Elem>
void pack_cols(const View<Elem>& r, int64_t p0, int64_t q0, int64_t cols, int64_t kc, Real* dst) {
  if (r.cs == 1) {
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t j = 0; j < NR; ++j) pack_one(r, p0 + p, q0 + j, j < cols, dst + p * NR * kPlanes + j, NR);
  } else {
    for (int64_t j = 0; j < NR; ++j)
      for (int64_t p = 0; p < kc; ++p) pack_one(r, p0 + p, q0 + j, j < cols, dst + p * NR * kPlanes + j, NR);
  }
}

inline V load_v(const Real* p) {
  V v;
  memcpy(&v, p, sizeof v);
  return v;
}
inline void store_v(Real* p, V v) { memcpy(p, &v, sizeof v); }
// a * b + c in one rounding where the CPU has FMA (g++ -std=c++17 does not
// contract a * b + c on its own).
// splat(p): *p in every lane, one broadcast load (V{} + x would keep an
// addition of +0, which is not an identity for -0).
#if defined(__AVX512F__)
inline V fma_v(V a, V b, V c) { return (V)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c); }
inline V splat(const Real* p) { return (V)_mm512_set1_ps(*p); }
#elif defined(__AVX2__) && defined(__FMA__)
inline V fma_v(V a, V b, V c) { return (V)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c); }
inline V splat(const Real* p) { return (V)_mm256_set1_ps(*p); }
#else
inline V fma_v(V a, V b, V c) { return a * b + c; }
inline V splat(const Real* p) {
  V v;
  for (int64_t l = 0; l < W; ++l) v[l] = *p;
  return v;
}
#endif

// acc (MR x NR tile of the workspace, row pitch ldw) (+)= panel(a) * panel(b).
inline void micro(int64_t kc, const Real* ap, const Real* bp, Real* acc_out, int64_t ldw, bool first) {
  V acc[MR][NV];
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q) acc[i][q] = V{};
  for (int64_t p = 0; p < kc; ++p) {
    V b[NV];
    for (int64_t q = 0; q < NV; ++q) b[q] = load_v(bp + p * NR + q * W);
    for (int64_t i = 0; i < MR; ++i) {
      const V a = splat(ap + p * MR + i);
      for (int64_t q = 0; q < NV; ++q) acc[i][q] = fma_v(a, b[q], acc[i][q]);
    }
  }
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t q = 0; q < NV; ++q) {
      Real* w = acc_out + i * ldw + q * W;
      store_v(w, first ? acc[i][q] : acc[i][q] + load_v(w));
    }
}

// Rows [r0, r0 + rows) of the row-major product L (n x k) * R (k x m) into
// the workspace (rows x ldw per plane, ldw a multiple of NR).
template <class Elem>
void gemm_rows(int64_t r0, int64_t rows, int64_t m, int64_t k, const View<Elem>& l, const View<Elem>& r, Real* work,
               int64_t ldw, Real* apack, Real* bpack) {
  for (int64_t pc = 0; pc < k; pc += KC) {
    const int64_t kc = std::min(KC, k - pc);
    for (int64_t ir = 0; ir < rows; ir += MR) pack_rows(l, r0 + ir, pc, std::min(MR, rows - ir), kc, apack + ir * kc * kPlanes);
    for (int64_t jc = 0; jc < m; jc += NC) {
      const int64_t nc = std::min(NC, m - jc);
      for (int64_t jr = 0; jr < nc; jr += NR) pack_cols(r, pc, jc + jr, std::min(NR, nc - jr), kc, bpack + jr * kc * kPlanes);
      for (int64_t jr = 0; jr < nc; jr += NR)
        for (int64_t ir = 0; ir < rows; ir += MR)
          micro(kc, apack + ir * kc, bpack + jr * kc, work + ir * ldw + jc + jr, ldw, pc == 0);
    }
  }
}

// C := alpha op(A) op(B) + beta C for A, B stored as In and C stored as Out.
template <class In, class Out>
int gemm_ex(int transa, int transb, double alpha, const kgb_tensor* A0, const kgb_tensor* B0, double beta, kgb_tensor* C0) {
  if (A0->rank != 2 || B0->rank != 2 || C0->rank != 2) return KGB_ERR_INVALID;
  const bool ta = transa != 0, tb = transb != 0;
  const int64_t m = C0->sizes[0], n = C0->sizes[1], k = ta ? A0->sizes[0] : A0->sizes[1];
  if ((ta ? A0->sizes[1] : A0->sizes[0]) != m || (tb ? B0->sizes[1] : B0->sizes[0]) != k ||
      (tb ? B0->sizes[0] : B0->sizes[1]) != n)
    return KGB_ERR_INVALID;
  if (m == 0 || n == 0) return KGB_OK;
  const Real alpha_r = static_cast<Real>(alpha), beta_r = static_cast<Real>(beta);
  const bool multiply = k > 0 && alpha_r != Real(0);  // else A and B are not read
  const bool read_c = beta_r != Real(0);              // else C is not read

  // C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m).
  const int64_t lrs = tb ? B0->strides[0] : B0->strides[1], lcs = tb ? B0->strides[1] : B0->strides[0];
  const int64_t rrs = ta ? A0->strides[0] : A0->strides[1], rcs = ta ? A0->strides[1] : A0->strides[0];
  const int64_t cs0 = C0->strides[0], cs1 = C0->strides[1];
  const int64_t ldw = (m + NR - 1) / NR * NR;  // workspace row pitch
  const int64_t row_blocks = (n + MC - 1) / MC;
  const int64_t units = row_blocks;
#pragma omp parallel
  {
    std::vector<Real> apack, bpack, work(static_cast<size_t>(MC * ldw * kPlanes));
    if (multiply) {
      apack.resize(static_cast<size_t>(MC * std::min(k, KC) * kPlanes));
      bpack.resize(static_cast<size_t>((std::min(m, NC) + NR - 1) / NR * NR * std::min(k, KC) * kPlanes));
    }
#pragma omp for schedule(dynamic, 1)
    for (int64_t u = 0; u < units; ++u) {
      const int64_t r0 = u * MC, rows = std::min(MC, n - r0);
      const In* a = static_cast<const In*>(A0->data);
      const In* bm = static_cast<const In*>(B0->data);
      Out* c = static_cast<Out*>(C0->data);
      if (multiply) {
        const View<In> l{bm, lrs, lcs}, r{a, rrs, rcs};
        gemm_rows(r0, rows, m, k, l, r, work.data(), ldw, apack.data(), bpack.data());
      }
      // Epilogue: column r0 + jj of C is row jj of the workspace.
      for (int64_t jj = 0; jj < rows; ++jj) {
        const Real* w = work.data() + jj * ldw;
        Out* col = c + (r0 + jj) * cs1;
        for (int64_t i = 0; i < m; ++i) {
          Real v = multiply ? alpha_r * w[i] : Real(0);
          if (read_c) v += beta_r * load(col + i * cs0);
          store(col + i * cs0, v);
        }
      }
    }
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_blas_sgemm_ex(int transa, int transb, double alpha, const kgb_tensor* A, const kgb_tensor* B, double beta, kgb_tensor* C, kgb_stream stream) {
  (void)stream;
  if (transa < 0 || transa > 2 || transb < 0 || transb > 2) return KGB_ERR_INVALID;
  if (A->dtype != B->dtype) return KGB_ERR_UNSUPPORTED;
  const int32_t in = A->dtype, out = C->dtype;
  if (out == KGB_F32) {
    if (in == KGB_F32) return gemm_ex<float, float>(transa, transb, alpha, A, B, beta, C);
    if (in == KGB_F16) return gemm_ex<F16, float>(transa, transb, alpha, A, B, beta, C);
    if (in == KGB_BF16) return gemm_ex<BF16, float>(transa, transb, alpha, A, B, beta, C);
    if (in == KGB_I8) return gemm_ex<int8_t, float>(transa, transb, alpha, A, B, beta, C);
  }
  if (in == KGB_F16 && out == KGB_F16) return gemm_ex<F16, F16>(transa, transb, alpha, A, B, beta, C);
  if (in == KGB_BF16 && out == KGB_BF16) return gemm_ex<BF16, BF16>(transa, transb, alpha, A, B, beta, C);
  return KGB_ERR_UNSUPPORTED;
}
