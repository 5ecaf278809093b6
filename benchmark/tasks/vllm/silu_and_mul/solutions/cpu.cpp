// vllm/silu_and_mul on the CPU: out[t, j] = silu(x) * y, x = input[t, j],
// y = input[t, d + j].
//
// Work items are (token, chunk of CH columns) pairs spread over OpenMP
// threads, so a few very wide tokens still use every core. Each chunk of x and
// y is converted into small float buffers (vectorised for unit stride), the
// activation runs in a branch-free loop that the compiler vectorises, with an
// inline exp (Cody-Waite range reduction plus a polynomial, ~1 ulp),
// and the result is rounded once into the output dtype.
#include <stdint.h>
#include <string.h>

#include <algorithm>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define KGB_SILU_F16C 1
#endif

namespace {

inline float f32_from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
inline uint32_t bits_from_f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

struct F32 {
  using S = float;
  static void load(const S* s, int64_t st, int64_t n, float* d) {
    if (st == 1) { memcpy(d, s, static_cast<size_t>(n) * sizeof(float)); return; }
    for (int64_t j = 0; j < n; ++j) d[j] = s[j * st];
  }
  static void store(const float* v, S* o, int64_t st, int64_t n) {
    if (st == 1) { memcpy(o, v, static_cast<size_t>(n) * sizeof(float)); return; }
    for (int64_t j = 0; j < n; ++j) o[j * st] = v[j];
  }
};
struct F16 {
  using S = uint16_t;
  static void load(const S* s, int64_t st, int64_t n, float* d) {
    int64_t j = 0;
#if KGB_SILU_F16C
    if (st == 1)
      for (; j + 8 <= n; j += 8)
        _mm256_storeu_ps(d + j, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j))));
#endif
    for (; j < n; ++j) d[j] = kgb_f16_to_float(s[j * st]);
  }
  static void store(const float* v, S* o, int64_t st, int64_t n) {
    int64_t j = 0;
#if KGB_SILU_F16C
    if (st == 1)
      for (; j + 8 <= n; j += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o + j), _mm256_cvtps_ph(_mm256_loadu_ps(v + j), _MM_FROUND_TO_NEAREST_INT));
#endif
    for (; j < n; ++j) o[j * st] = kgb_float_to_f16(v[j]);
  }
};
struct BF16 {
  using S = uint16_t;
  static void load(const S* s, int64_t st, int64_t n, float* d) {
    if (st == 1) {
      for (int64_t j = 0; j < n; ++j) d[j] = kgb_bf16_to_float(s[j]);
      return;
    }
    for (int64_t j = 0; j < n; ++j) d[j] = kgb_bf16_to_float(s[j * st]);
  }
  static void store(const float* v, S* o, int64_t st, int64_t n) {
    if (st == 1) {
      for (int64_t j = 0; j < n; ++j) o[j] = kgb_float_to_bf16(v[j]);
      return;
    }
    for (int64_t j = 0; j < n; ++j) o[j * st] = kgb_float_to_bf16(v[j]);
  }
};

// exp(x) in float, branch-free so that the loop below vectorises. n =
// round(x / ln 2) comes from the 1.5 * 2^23 shifter trick (the add rounds to
// nearest and leaves n in the low mantissa bits), r = x - n ln 2 uses ln 2
// split in two so that it stays exact, and exp(r) on [-ln2/2, ln2/2] is
// 1 + r + r^2 P(r) with P of degree 5 (~1 ulp). The exponent is clamped in the
// integer domain to [-126, 127]: beyond |x| ~ 88 the result stays a huge or a
// tiny finite number instead of overflowing, which leaves silu unchanged at
// float precision (x / (1 + huge) ~ 0, x / (1 + tiny) = x) and never gives NaN.
// (A float clamp would be a compare-and-select that GCC refuses to vectorise
// under the default trapping-math rules.)
inline float exp_approx(float x) {
  const float shifter = 12582912.0f;
  const float t = x * 1.44269504088896341f + shifter;
  const float n = t - shifter;
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = (p * r) * r + r + 1.0f;
  int32_t ni = static_cast<int32_t>(bits_from_f32(t) - bits_from_f32(shifter));
  ni = ni < -126 ? -126 : ni;
  ni = ni > 127 ? 127 : ni;
  return e * f32_from_bits(static_cast<uint32_t>(ni + 127) << 23);
}

constexpr int64_t CH = 2048;  // columns per work item

inline int64_t row_offset(const kgb_tensor* t, int64_t r) {
  int64_t off = 0;
  for (int32_t d = t->rank - 2; d >= 0; --d) {
    off += (r % t->sizes[d]) * t->strides[d];
    r /= t->sizes[d];
  }
  return off;
}

template <class E>
int run(kgb_tensor* out, const kgb_tensor* input) {
  using S = typename E::S;
  const int64_t d = out->sizes[out->rank - 1];
  const int64_t tokens = d > 0 ? kgb_numel(out) / d : 0;
  if (tokens == 0) return KGB_OK;
  const int64_t in_st = input->strides[input->rank - 1], out_st = out->strides[out->rank - 1];
  const int64_t chunks = (d + CH - 1) / CH;
  const S* in = static_cast<const S*>(input->data);
  S* o = static_cast<S*>(out->data);

#pragma omp parallel
  {
    alignas(32) float x[CH];
    alignas(32) float y[CH];
#pragma omp for schedule(static)
    for (int64_t w = 0; w < tokens * chunks; ++w) {
      const int64_t t = w / chunks, j0 = (w % chunks) * CH;
      const int64_t len = std::min(CH, d - j0);
      const S* row = in + row_offset(input, t);
      E::load(row + j0 * in_st, in_st, len, x);
      E::load(row + (d + j0) * in_st, in_st, len, y);
#pragma omp simd
      for (int64_t j = 0; j < len; ++j) x[j] = x[j] / (1.0f + exp_approx(-x[j])) * y[j];
      E::store(x, o + row_offset(out, t) + j0 * out_st, out_st, len);
    }
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_vllm_silu_and_mul(kgb_tensor* out, const kgb_tensor* input, kgb_stream stream) {
  (void)stream;
  if (input->rank < 1 || out->rank != input->rank) return KGB_ERR_INVALID;
  for (int32_t k = 0; k + 1 < input->rank; ++k)
    if (out->sizes[k] != input->sizes[k]) return KGB_ERR_INVALID;
  if (input->sizes[input->rank - 1] != 2 * out->sizes[out->rank - 1]) return KGB_ERR_INVALID;
  if (input->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  switch (out->dtype) {
    case KGB_F32: return run<F32>(out, input);
    case KGB_F16: return run<F16>(out, input);
    case KGB_BF16: return run<BF16>(out, input);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
