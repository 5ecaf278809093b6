// vllm/rms_norm on the CPU: out[t, :] = x / sqrt(mean(x^2) + eps) * w per token.
//
// Tokens are spread over OpenMP threads. Each token row is converted once into
// a per-thread float buffer (unit-stride rows take vectorised conversions;
// any other stride a gather), the sum of squares is reduced with a SIMD
// reduction in float, and the scaled row is rounded once into the output
// dtype. The weight is converted to float once per call.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define KGB_RMS_F16C 1
#endif

namespace {

// Row conversions between storage (with element stride st) and float.
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
#if KGB_RMS_F16C
    if (st == 1)
      for (; j + 8 <= n; j += 8)
        _mm256_storeu_ps(d + j, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j))));
#endif
    for (; j < n; ++j) d[j] = kgb_f16_to_float(s[j * st]);
  }
  static void store(const float* v, S* o, int64_t st, int64_t n) {
    int64_t j = 0;
#if KGB_RMS_F16C
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

// Element offset of token `r` (row-major over all dims but the last).
inline int64_t row_offset(const kgb_tensor* t, int64_t r) {
  int64_t off = 0;
  for (int32_t d = t->rank - 2; d >= 0; --d) {
    off += (r % t->sizes[d]) * t->strides[d];
    r /= t->sizes[d];
  }
  return off;
}

template <class E>
int run(kgb_tensor* out, const kgb_tensor* input, const kgb_tensor* weight, double epsilon) {
  using S = typename E::S;
  const int64_t hidden = input->sizes[input->rank - 1];
  const int64_t tokens = kgb_numel(input) / (hidden > 0 ? hidden : 1);
  if (tokens == 0 || hidden == 0) return KGB_OK;
  const int64_t in_st = input->strides[input->rank - 1], out_st = out->strides[out->rank - 1];
  const S* in = static_cast<const S*>(input->data);
  S* o = static_cast<S*>(out->data);

  std::vector<float> w(static_cast<size_t>(hidden));
  E::load(static_cast<const S*>(weight->data), weight->strides[0], hidden, w.data());
  const float* wp = w.data();
  const float eps = static_cast<float>(epsilon);
  const float inv_hidden = 1.0f / static_cast<float>(hidden);

#pragma omp parallel
  {
    std::vector<float> buf(static_cast<size_t>(hidden));
    float* x = buf.data();
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tokens; ++t) {
      E::load(in + row_offset(input, t), in_st, hidden, x);
      float sumsq = 0.0f;
#pragma omp simd reduction(+ : sumsq)
      for (int64_t j = 0; j < hidden; ++j) sumsq += x[j] * x[j];
      const float inv_rms = 1.0f / sqrtf(sumsq * inv_hidden + eps);
#pragma omp simd
      for (int64_t j = 0; j < hidden; ++j) x[j] = x[j] * inv_rms * wp[j];
      E::store(x, o + row_offset(out, t), out_st, hidden);
    }
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_vllm_rms_norm(kgb_tensor* out, const kgb_tensor* input, const kgb_tensor* weight, double epsilon,
                                 kgb_stream stream) {
  (void)stream;
  if (input->rank < 1 || weight->rank != 1 || out->rank != input->rank) return KGB_ERR_INVALID;
  for (int32_t d = 0; d < input->rank; ++d)
    if (out->sizes[d] != input->sizes[d]) return KGB_ERR_INVALID;
  if (weight->sizes[0] != input->sizes[input->rank - 1]) return KGB_ERR_INVALID;
  if (input->dtype != out->dtype || weight->dtype != out->dtype) return KGB_ERR_UNSUPPORTED;
  switch (out->dtype) {
    case KGB_F32: return run<F32>(out, input, weight, epsilon);
    case KGB_F16: return run<F16>(out, input, weight, epsilon);
    case KGB_BF16: return run<BF16>(out, input, weight, epsilon);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
