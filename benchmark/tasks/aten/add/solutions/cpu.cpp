// aten/add on the CPU: out = self + alpha * other with broadcasting.
// The three views are folded into one iteration space (broadcast dims get
// stride 0, size-1 dims are dropped, mergeable dims are fused), walked in the
// storage order of out. Rows with unit/zero strides take vectorisable loops;
// f16/bf16 rows are converted to float in small blocks, computed in float and
// rounded once.
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define KGB_ADD_F16C 1
#endif

namespace {

struct HalfCvt {
  static void load(const uint16_t* p, int64_t s, float* dst, int n) {
    if (s == 0) { const float v = kgb_f16_to_float(p[0]); for (int i = 0; i < n; ++i) dst[i] = v; return; }
    int i = 0;
#if KGB_ADD_F16C
    if (s == 1)
      for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
#endif
    for (; i < n; ++i) dst[i] = kgb_f16_to_float(p[i * s]);
  }
  static void store(const float* src, uint16_t* p, int64_t s, int n) {
    int i = 0;
#if KGB_ADD_F16C
    if (s == 1)
      for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#endif
    for (; i < n; ++i) p[i * s] = kgb_float_to_f16(src[i]);
  }
};

struct BF16Cvt {
  static void load(const uint16_t* p, int64_t s, float* dst, int n) {
    if (s == 0) { const float v = kgb_bf16_to_float(p[0]); for (int i = 0; i < n; ++i) dst[i] = v; return; }
    if (s == 1) { for (int i = 0; i < n; ++i) dst[i] = kgb_bf16_to_float(p[i]); return; }
    for (int i = 0; i < n; ++i) dst[i] = kgb_bf16_to_float(p[i * s]);
  }
  static void store(const float* src, uint16_t* p, int64_t s, int n) {
    if (s == 1) { for (int i = 0; i < n; ++i) p[i] = kgb_float_to_bf16(src[i]); return; }
    for (int i = 0; i < n; ++i) p[i * s] = kgb_float_to_bf16(src[i]);
  }
};

// ---- the iteration space ---------------------------------------------------
struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t st[3][KGB_MAX_RANK];  // element strides of out, self, other
};

// Stride of `t` along out's dim d (0 when broadcast); false if incompatible.
bool input_stride(const kgb_tensor* t, int out_rank, int d, int64_t out_size, int64_t* stride) {
  const int k = d - (out_rank - t->rank);
  if (k < 0 || t->sizes[k] == 1) { *stride = 0; return true; }
  if (t->sizes[k] != out_size) return false;
  *stride = t->strides[k];
  return true;
}

bool build_space(const kgb_tensor* out, const kgb_tensor* a, const kgb_tensor* b, Space& sp) {
  if (a->rank > out->rank || b->rank > out->rank || out->rank > KGB_MAX_RANK) return false;
  Space raw;
  for (int d = 0; d < out->rank; ++d) {
    const int64_t n = out->sizes[d];
    int64_t sa, sb;
    if (!input_stride(a, out->rank, d, n, &sa) || !input_stride(b, out->rank, d, n, &sb)) return false;
    if (n == 1) continue;  // contributes nothing to addressing
    raw.size[raw.rank] = n;
    raw.st[0][raw.rank] = out->strides[d];
    raw.st[1][raw.rank] = sa;
    raw.st[2][raw.rank] = sb;
    ++raw.rank;
  }
  // Walk out in storage order: sort dims by |out stride|, largest first.
  for (int i = 1; i < raw.rank; ++i)
    for (int j = i; j > 0; --j) {
      const int64_t x = raw.st[0][j - 1] < 0 ? -raw.st[0][j - 1] : raw.st[0][j - 1];
      const int64_t y = raw.st[0][j] < 0 ? -raw.st[0][j] : raw.st[0][j];
      if (x >= y) break;
      const int64_t ts = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = ts;
      for (int k = 0; k < 3; ++k) { const int64_t t = raw.st[k][j]; raw.st[k][j] = raw.st[k][j - 1]; raw.st[k][j - 1] = t; }
    }
  // Fuse dim d into d+1 when every tensor steps over d exactly one row of d+1.
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    if (sp.rank > 0) {
      const int p = sp.rank - 1;
      bool fuse = true;
      for (int k = 0; k < 3; ++k) fuse = fuse && sp.st[k][p] == raw.st[k][d] * raw.size[d];
      if (fuse) {
        sp.size[p] *= raw.size[d];
        for (int k = 0; k < 3; ++k) sp.st[k][p] = raw.st[k][d];
        continue;
      }
    }
    sp.size[sp.rank] = raw.size[d];
    for (int k = 0; k < 3; ++k) sp.st[k][sp.rank] = raw.st[k][d];
    ++sp.rank;
  }
  if (sp.rank == 0) {  // a single element
    sp.rank = 1;
    sp.size[0] = 1;
    sp.st[0][0] = sp.st[1][0] = sp.st[2][0] = 0;
  }
  return true;
}

// ---- row kernels -----------------------------------------------------------
template <typename T>
inline T combine(T a, T b, T alpha) { return a + alpha * b; }
// Integers wrap like PyTorch's int tensors instead of hitting signed overflow.
template <>
inline int32_t combine<int32_t>(int32_t a, int32_t b, int32_t alpha) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(alpha) * static_cast<uint32_t>(b));
}
template <>
inline int64_t combine<int64_t>(int64_t a, int64_t b, int64_t alpha) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(alpha) * static_cast<uint64_t>(b));
}

template <typename T>
void row_native(T* __restrict o, const T* __restrict a, const T* __restrict b, int64_t n, int64_t so, int64_t sa,
                int64_t sb, T alpha) {
  if (so == 1 && sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = combine(a[i], b[i], alpha);
  } else if (so == 1 && sa == 1 && sb == 0) {
    const T bv = b[0];
    for (int64_t i = 0; i < n; ++i) o[i] = combine(a[i], bv, alpha);
  } else if (so == 1 && sa == 0 && sb == 1) {
    const T av = a[0];
    for (int64_t i = 0; i < n; ++i) o[i] = combine(av, b[i], alpha);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i * so] = combine(a[i * sa], b[i * sb], alpha);
  }
}

template <typename Cvt>
void row_16bit(uint16_t* o, const uint16_t* a, const uint16_t* b, int64_t n, int64_t so, int64_t sa, int64_t sb,
               float alpha) {
  constexpr int kBlock = 512;
  float fa[kBlock], fb[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int m = static_cast<int>(n - start < kBlock ? n - start : kBlock);
    Cvt::load(a + start * sa, sa, fa, m);
    Cvt::load(b + start * sb, sb, fb, m);
    for (int i = 0; i < m; ++i) fa[i] = fa[i] + alpha * fb[i];
    Cvt::store(fa, o + start * so, so, m);
  }
}

// Splits the space into (outer index, chunk of the innermost dim) work items.
template <typename T, typename Row>
void for_each_row(const Space& sp, T* o, const T* a, const T* b, Row row) {
  const int last = sp.rank - 1;
  const int64_t inner = sp.size[last];
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= sp.size[d];
  const int64_t kChunk = 16384;
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  const int64_t items = outer * chunks;
#pragma omp parallel for schedule(static) if (outer * inner > 32768)
  for (int64_t w = 0; w < items; ++w) {
    int64_t rem = w / chunks;
    const int64_t begin = (w % chunks) * kChunk;
    int64_t off[3] = {begin * sp.st[0][last], begin * sp.st[1][last], begin * sp.st[2][last]};
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rem % sp.size[d];
      rem /= sp.size[d];
      for (int k = 0; k < 3; ++k) off[k] += i * sp.st[k][d];
    }
    const int64_t len = inner - begin < kChunk ? inner - begin : kChunk;
    row(o + off[0], a + off[1], b + off[2], len, sp.st[0][last], sp.st[1][last], sp.st[2][last]);
  }
}

template <typename T, typename A>
void run_native(const Space& sp, const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, A alpha) {
  const T al = static_cast<T>(alpha);
  for_each_row(sp, static_cast<T*>(out->data), static_cast<const T*>(self->data), static_cast<const T*>(other->data),
               [al](T* o, const T* a, const T* b, int64_t n, int64_t so, int64_t sa, int64_t sb) {
                 row_native<T>(o, a, b, n, so, sa, sb, al);
               });
}

template <typename Cvt>
void run_16bit(const Space& sp, const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, float alpha) {
  for_each_row(sp, static_cast<uint16_t*>(out->data), static_cast<const uint16_t*>(self->data),
               static_cast<const uint16_t*>(other->data),
               [alpha](uint16_t* o, const uint16_t* a, const uint16_t* b, int64_t n, int64_t so, int64_t sa,
                       int64_t sb) { row_16bit<Cvt>(o, a, b, n, so, sa, sb, alpha); });
}

}  // namespace

extern "C" int kgb_aten_add(const kgb_tensor* self, const kgb_tensor* other, kgb_scalar alpha_scalar, kgb_tensor* out,
                            kgb_stream stream) {
  // alpha is an ATen Scalar: an integer (KGB_I64) or a double (KGB_F64).
  const double alpha = alpha_scalar.dtype == KGB_F64 ? alpha_scalar.v.f : static_cast<double>(alpha_scalar.v.i);
  (void)stream;
  if (self->dtype != out->dtype || other->dtype != out->dtype) return KGB_ERR_INVALID;
  switch (out->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  Space sp;
  if (!build_space(out, self, other, sp)) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;
  switch (out->dtype) {
    case KGB_F32: run_native<float>(sp, self, other, out, static_cast<float>(alpha)); break;
    case KGB_F64: run_native<double>(sp, self, other, out, alpha); break;
    case KGB_I32: run_native<int32_t>(sp, self, other, out, static_cast<int64_t>(alpha)); break;
    case KGB_I64: run_native<int64_t>(sp, self, other, out, static_cast<int64_t>(alpha)); break;
    case KGB_F16: run_16bit<HalfCvt>(sp, self, other, out, static_cast<float>(alpha)); break;
    case KGB_BF16: run_16bit<BF16Cvt>(sp, self, other, out, static_cast<float>(alpha)); break;
  }
  return KGB_OK;
}
