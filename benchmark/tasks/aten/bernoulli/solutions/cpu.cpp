// aten/bernoulli on the CPU: out[i] = (u(seed, i) < self[i]) ? 1 : 0.
//
// A counter-based generator makes every draw a pure function of the seed and
// the element's logical (row-major) index, so any thread may compute any
// element and the result never depends on scheduling. The seed is expanded
// once with splitmix64 into 32-bit keys; each element then runs two rounds of
// a 32-bit multiply-xorshift finaliser over (index, keys), which is bijective
// in the index for a fixed seed and vectorises (32-bit lanes). The top 24 bits
// give u in [0, 1). Work is split into row chunks of at most CH elements:
// probabilities are converted to float (double for f64) in a small buffer,
// compared, and the 0/1 results written back in the output dtype.
#include <stdint.h>
#include <string.h>

#include <algorithm>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define KGB_BERNOULLI_F16C 1
#endif

namespace {

// ---- 16-bit float conversions -----------------------------------------------

// ---- counter-based generator --------------------------------------------------
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

struct Keys {
  uint32_t k0, k1, k2;
};

inline Keys make_keys(int64_t seed) {
  const uint64_t a = splitmix64(static_cast<uint64_t>(seed));
  const uint64_t b = splitmix64(a);
  return Keys{static_cast<uint32_t>(a), static_cast<uint32_t>(a >> 32), static_cast<uint32_t>(b)};
}

// 24 random bits as a float in [0, 1) for the element with index (hi:lo).
// `hk` is the per-run key k1 ^ mix(hi), constant while hi is.
inline float uniform24(uint32_t lo, uint32_t k0, uint32_t hk) {
  const uint32_t h = fmix32(fmix32(lo ^ k0) ^ hk);
  return static_cast<float>(h >> 8) * 0x1.0p-24f;
}

// ---- per-dtype row access ------------------------------------------------------
constexpr int64_t CH = 1024;  // elements per work item (one row chunk)

struct F32 {
  using S = float; using P = float;
  static void load(const S* s, int64_t st, int64_t n, P* dst) { for (int64_t j = 0; j < n; ++j) dst[j] = s[j * st]; }
  static void store(const P* r, S* o, int64_t st, int64_t n) { for (int64_t j = 0; j < n; ++j) o[j * st] = r[j]; }
};
struct F64 {
  using S = double; using P = double;
  static void load(const S* s, int64_t st, int64_t n, P* dst) { for (int64_t j = 0; j < n; ++j) dst[j] = s[j * st]; }
  static void store(const P* r, S* o, int64_t st, int64_t n) { for (int64_t j = 0; j < n; ++j) o[j * st] = r[j]; }
};
struct F16 {
  using S = uint16_t; using P = float;
  static void load(const S* s, int64_t st, int64_t n, P* dst) {
    int64_t j = 0;
#if KGB_BERNOULLI_F16C
    if (st == 1)
      for (; j + 8 <= n; j += 8)
        _mm256_storeu_ps(dst + j, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j))));
#endif
    for (; j < n; ++j) dst[j] = kgb_f16_to_float(s[j * st]);
  }
  // r holds exactly 0 or 1: 1.0 is 0x3C00 in binary16.
  static void store(const P* r, S* o, int64_t st, int64_t n) {
    for (int64_t j = 0; j < n; ++j) o[j * st] = r[j] != 0.0f ? uint16_t(0x3C00u) : uint16_t(0);
  }
};
struct BF16 {
  using S = uint16_t; using P = float;
  static void load(const S* s, int64_t st, int64_t n, P* dst) { for (int64_t j = 0; j < n; ++j) dst[j] = kgb_bf16_to_float(s[j * st]); }
  static void store(const P* r, S* o, int64_t st, int64_t n) {
    for (int64_t j = 0; j < n; ++j) o[j * st] = r[j] != 0.0f ? uint16_t(0x3F80u) : uint16_t(0);
  }
};

// Element offset of row `r` (all dims but the last, row-major) of a view.
inline int64_t row_offset(const kgb_tensor* t, int64_t r) {
  int64_t off = 0;
  for (int32_t d = t->rank - 2; d >= 0; --d) {
    off += (r % t->sizes[d]) * t->strides[d];
    r /= t->sizes[d];
  }
  return off;
}

template <class E>
int run(const kgb_tensor* self, int64_t seed, kgb_tensor* out) {
  using S = typename E::S;
  using P = typename E::P;
  const int64_t n = kgb_numel(out);
  if (n == 0) return KGB_OK;
  const int64_t inner = out->rank > 0 ? out->sizes[out->rank - 1] : 1;
  const int64_t in_st = self->rank > 0 ? self->strides[self->rank - 1] : 1;
  const int64_t out_st = out->rank > 0 ? out->strides[out->rank - 1] : 1;
  const int64_t rows = n / inner;
  const int64_t chunks = (inner + CH - 1) / CH;
  const Keys keys = make_keys(seed);
  const S* src = static_cast<const S*>(self->data);
  S* dst = static_cast<S*>(out->data);

#pragma omp parallel
  {
    alignas(32) P p[CH];
    alignas(32) P r[CH];
#pragma omp for schedule(static)
    for (int64_t w = 0; w < rows * chunks; ++w) {
      const int64_t row = w / chunks, j0 = (w % chunks) * CH;
      const int64_t len = std::min(CH, inner - j0);
      E::load(src + row_offset(self, row) + j0 * in_st, in_st, len, p);
      // Split where the high half of the 64-bit index changes (only for
      // tensors beyond 2^32 elements) so each inner loop has a fixed key.
      int64_t j = 0;
      while (j < len) {
        const uint64_t idx = static_cast<uint64_t>(row * inner + j0 + j);
        const uint32_t hi = static_cast<uint32_t>(idx >> 32), lo0 = static_cast<uint32_t>(idx);
        const int64_t run_len = std::min<int64_t>(len - j, static_cast<int64_t>((1ull << 32) - lo0));
        const uint32_t hk = keys.k1 ^ fmix32(hi ^ keys.k2);
        const uint32_t k0 = keys.k0;
        P* pr = p + j;
        P* rr = r + j;
#pragma omp simd
        for (int64_t t = 0; t < run_len; ++t) {
          const float u = uniform24(lo0 + static_cast<uint32_t>(t), k0, hk);
          rr[t] = static_cast<P>(u) < pr[t] ? P(1) : P(0);
        }
        j += run_len;
      }
      E::store(r, dst + row_offset(out, row) + j0 * out_st, out_st, len);
    }
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_bernoulli(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->rank != out->rank) return KGB_ERR_INVALID;
  for (int32_t d = 0; d < out->rank; ++d)
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
  if (self->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  switch (out->dtype) {
    case KGB_F32: return run<F32>(self, seed, out);
    case KGB_F64: return run<F64>(self, seed, out);
    case KGB_F16: return run<F16>(self, seed, out);
    case KGB_BF16: return run<BF16>(self, seed, out);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
