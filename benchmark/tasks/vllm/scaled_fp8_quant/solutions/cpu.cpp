// vllm/scaled_fp8_quant on the CPU: static, dynamic and dynamic per-token
// quantisation to fp8 e4m3fn.
//
// Rows are spread over OpenMP threads (one parallel loop per pass). Each row
// is converted once into a per-thread float buffer (unit-stride f16 rows with
// F16C, bf16 by a shift, any other stride a gather); the scaling, the clamp to
// +-448 and the branch-free round-to-nearest-even of kgb_half.h run in one
// SIMD loop into a byte buffer that is copied (or scattered) into the result
// row. The arithmetic is vLLM's: the static and dynamic ops multiply by the
// float reciprocal of the scale, the per-token op divides by its scale. The
// dynamic op first reduces max |x| over all rows in parallel.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define KGB_FP8Q_F16C 1
#endif

namespace {

constexpr float kFp8Max = 448.0f;

// Row t of a 2-D tensor converted to float.
void load_row(const kgb_tensor* t, int64_t row, float* out) {
  const int64_t n = t->sizes[1], st = t->strides[1];
  const int64_t base = row * t->strides[0];
  switch (t->dtype) {
    case KGB_F32: {
      const float* s = static_cast<const float*>(t->data) + base;
      if (st == 1) memcpy(out, s, static_cast<size_t>(n) * sizeof(float));
      else for (int64_t j = 0; j < n; ++j) out[j] = s[j * st];
      return;
    }
    case KGB_F16: {
      const uint16_t* s = static_cast<const uint16_t*>(t->data) + base;
      int64_t j = 0;
#if KGB_FP8Q_F16C
      if (st == 1)
        for (; j + 8 <= n; j += 8) _mm256_storeu_ps(out + j, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j))));
#endif
      for (; j < n; ++j) out[j] = kgb_f16_to_float(s[j * st]);
      return;
    }
    default: {
      const uint16_t* s = static_cast<const uint16_t*>(t->data) + base;
      if (st == 1) {
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) out[j] = kgb_bf16_to_float(s[j]);
      } else {
        for (int64_t j = 0; j < n; ++j) out[j] = kgb_bf16_to_float(s[j * st]);
      }
    }
  }
}

float absmax(const float* x, int64_t n) {
  float m = 0.0f;
#pragma omp simd reduction(max : m)
  for (int64_t j = 0; j < n; ++j) m = fmaxf(m, fabsf(x[j]));
  return m;
}

// result[row, :] = e4m3fn(clamp(x * factor)) or e4m3fn(clamp(x / factor)).
template <bool kDivide>
void store_row(kgb_tensor* result, int64_t row, const float* x, float factor, uint8_t* bytes) {
  const int64_t n = result->sizes[1], st = result->strides[1];
  uint8_t* out = static_cast<uint8_t*>(result->data) + row * result->strides[0];
  uint8_t* dst = st == 1 ? out : bytes;
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const float v = kDivide ? x[j] / factor : x[j] * factor;
    dst[j] = kgb_float_to_f8e4m3fn_sat(fmaxf(-kFp8Max, fminf(v, kFp8Max)));
  }
  if (st != 1)
    for (int64_t j = 0; j < n; ++j) out[j * st] = bytes[j];
}

bool valid(const kgb_tensor* result, const kgb_tensor* input) {
  return input->rank == 2 && result->rank == 2 && result->sizes[0] == input->sizes[0] && result->sizes[1] == input->sizes[1] &&
         result->dtype == KGB_F8E4M3FN;
}

bool supported(const kgb_tensor* input) { return input->dtype == KGB_F32 || input->dtype == KGB_F16 || input->dtype == KGB_BF16; }

// Quantises every row with one factor (the reciprocal of a per-tensor scale).
void quantize_all(kgb_tensor* result, const kgb_tensor* input, float inv_scale) {
  const int64_t rows = input->sizes[0], n = input->sizes[1];
#pragma omp parallel
  {
    std::vector<float> x(static_cast<size_t>(n));
    std::vector<uint8_t> bytes(static_cast<size_t>(n));
#pragma omp for schedule(static)
    for (int64_t t = 0; t < rows; ++t) {
      load_row(input, t, x.data());
      store_row<false>(result, t, x.data(), inv_scale, bytes.data());
    }
  }
}

}  // namespace

extern "C" int kgb_vllm_scaled_fp8_quant(kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, kgb_stream stream) {
  (void)stream;
  if (!supported(input)) return KGB_ERR_UNSUPPORTED;
  if (!valid(result, input) || scale->dtype != KGB_F32) return KGB_ERR_INVALID;
  if (input->sizes[0] == 0 || input->sizes[1] == 0) return KGB_OK;
  quantize_all(result, input, 1.0f / static_cast<const float*>(scale->data)[0]);
  return KGB_OK;
}

extern "C" int kgb_vllm_scaled_fp8_quant_dynamic(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale,
                                                 kgb_stream stream) {
  (void)stream;
  if (!supported(input)) return KGB_ERR_UNSUPPORTED;
  if (!valid(result, input) || scale->dtype != KGB_F32) return KGB_ERR_INVALID;
  const int64_t rows = input->sizes[0], n = input->sizes[1];
  float m = 0.0f;
#pragma omp parallel reduction(max : m)
  {
    std::vector<float> x(static_cast<size_t>(n));
#pragma omp for schedule(static)
    for (int64_t t = 0; t < rows; ++t) {
      load_row(input, t, x.data());
      m = fmaxf(m, absmax(x.data(), n));
    }
  }
  const float s = m / kFp8Max;
  static_cast<float*>(scale->data)[0] = s;
  if (rows > 0 && n > 0) quantize_all(result, input, 1.0f / s);
  return KGB_OK;
}

extern "C" int kgb_vllm_scaled_fp8_quant_dynamic_per_token(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale,
                                                           const kgb_tensor* scale_ub, kgb_stream stream) {
  (void)stream;
  if (!supported(input)) return KGB_ERR_UNSUPPORTED;
  if (!valid(result, input) || scale->dtype != KGB_F32 || scale->sizes[0] != input->sizes[0]) return KGB_ERR_INVALID;
  const int64_t rows = input->sizes[0], n = input->sizes[1];
  const bool bounded = scale_ub != nullptr;
  const float bound = bounded ? static_cast<const float*>(scale_ub->data)[0] : 0.0f;
  const float min_scale = 1.0f / (kFp8Max * 512.0f);
  float* scales = static_cast<float*>(scale->data);
  const int64_t scale_step = scale->strides[0];
#pragma omp parallel
  {
    std::vector<float> x(static_cast<size_t>(n));
    std::vector<uint8_t> bytes(static_cast<size_t>(n));
#pragma omp for schedule(static)
    for (int64_t t = 0; t < rows; ++t) {
      load_row(input, t, x.data());
      float m = absmax(x.data(), n);
      if (bounded) m = fminf(m, bound);
      const float s = fmaxf(m / kFp8Max, min_scale);
      scales[t * scale_step] = s;
      store_row<true>(result, t, x.data(), s, bytes.data());
    }
  }
  return KGB_OK;
}
