// Wrong on purpose: the per-token op ignores scale_ub, so rows whose absmax
// exceeds the bound get a larger scale (and the wrong values) instead of
// saturating at +-448.
#include <math.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

float load(const kgb_tensor* t, int64_t r, int64_t c) {
  const int64_t off = r * t->strides[0] + c * t->strides[1];
  switch (t->dtype) {
    case KGB_F32: return static_cast<const float*>(t->data)[off];
    case KGB_F16: return kgb_f16_to_float(static_cast<const uint16_t*>(t->data)[off]);
    default: return kgb_bf16_to_float(static_cast<const uint16_t*>(t->data)[off]);
  }
}

uint8_t to_fp8(float v) { return kgb_float_to_f8e4m3fn_sat(v); }

void quant_row(kgb_tensor* result, const kgb_tensor* input, int64_t t, float factor, bool divide) {
  uint8_t* q = static_cast<uint8_t*>(result->data);
  for (int64_t j = 0; j < input->sizes[1]; ++j) {
    const float x = load(input, t, j);
    q[t * result->strides[0] + j * result->strides[1]] = to_fp8(divide ? x / factor : x * factor);
  }
}

float row_absmax(const kgb_tensor* input, int64_t t) {
  float m = 0.0f;
  for (int64_t j = 0; j < input->sizes[1]; ++j) m = fmaxf(m, fabsf(load(input, t, j)));
  return m;
}

}  // namespace

extern "C" int kgb_vllm_scaled_fp8_quant(kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, kgb_stream) {
  const float inv = 1.0f / static_cast<const float*>(scale->data)[0];
  for (int64_t t = 0; t < input->sizes[0]; ++t) quant_row(result, input, t, inv, false);
  return KGB_OK;
}

extern "C" int kgb_vllm_scaled_fp8_quant_dynamic(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale, kgb_stream) {
  float m = 0.0f;
  for (int64_t t = 0; t < input->sizes[0]; ++t) m = fmaxf(m, row_absmax(input, t));
  const float s = m / 448.0f;
  static_cast<float*>(scale->data)[0] = s;
  for (int64_t t = 0; t < input->sizes[0]; ++t) quant_row(result, input, t, 1.0f / s, false);
  return KGB_OK;
}

extern "C" int kgb_vllm_scaled_fp8_quant_dynamic_per_token(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale,
                                                           const kgb_tensor* scale_ub, kgb_stream) {
  for (int64_t t = 0; t < input->sizes[0]; ++t) {
    float m = row_absmax(input, t);
    (void)scale_ub;
    const float s = fmaxf(m / 448.0f, 1.0f / (448.0f * 512.0f));
    static_cast<float*>(scale->data)[t * scale->strides[0]] = s;
    quant_row(result, input, t, s, true);
  }
  return KGB_OK;
}
