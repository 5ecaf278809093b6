// Baselines for vllm/scaled_fp8_quant (static) and its overloads dynamic and
// dynamic_per_token: plain, single-threaded C++ loops written here (vLLM's ops
// are CUDA-only). They follow vLLM's kernels step by step in float: the static
// and dynamic ops multiply by the float reciprocal of the scale, the
// per-token op divides by its scale; the value is clamped to [-448, 448] with
// fminf/fmaxf and rounded to nearest even into e4m3fn (kgb_half.h).
#include <cmath>
#include <cstdint>

#include "kgb_baseline.h"
#include "kgb_half.h"
#include "kgb_entries/vllm/scaled_fp8_quant.h"

namespace {

constexpr float kFp8Max = 448.0f;

float load(const kgb_tensor* t, int64_t offset) {
  switch (t->dtype) {
    case KGB_F32: return static_cast<const float*>(t->data)[offset];
    case KGB_F16: return kgb_f16_to_float(static_cast<const uint16_t*>(t->data)[offset]);
    default: return kgb_bf16_to_float(static_cast<const uint16_t*>(t->data)[offset]);
  }
}

bool supported(const kgb_tensor* input, const kgb_tensor* result) {
  return (input->dtype == KGB_F32 || input->dtype == KGB_F16 || input->dtype == KGB_BF16) && result->dtype == KGB_F8E4M3FN &&
         input->rank == 2 && result->rank == 2;
}

uint8_t quantize(float scaled) { return kgb_float_to_f8e4m3fn_sat(fmaxf(-kFp8Max, fminf(scaled, kFp8Max))); }

float row_absmax(const kgb_tensor* input, int64_t t) {
  float m = 0.0f;
  for (int64_t j = 0; j < input->sizes[1]; ++j) m = fmaxf(m, fabsf(load(input, t * input->strides[0] + j * input->strides[1])));
  return m;
}

// result[t, :] = quantize(input[t, :] * factor) (multiply) or / factor (divide).
void quantize_row(kgb_tensor* result, const kgb_tensor* input, int64_t t, float factor, bool divide) {
  uint8_t* out = static_cast<uint8_t*>(result->data);
  for (int64_t j = 0; j < input->sizes[1]; ++j) {
    const float x = load(input, t * input->strides[0] + j * input->strides[1]);
    out[t * result->strides[0] + j * result->strides[1]] = quantize(divide ? x / factor : x * factor);
  }
}

int static_plain(kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, kgb_stream) {
  if (!supported(input, result)) return KGB_ERR_UNSUPPORTED;
  const float inv_scale = 1.0f / static_cast<const float*>(scale->data)[0];
  for (int64_t t = 0; t < input->sizes[0]; ++t) quantize_row(result, input, t, inv_scale, false);
  return KGB_OK;
}

int dynamic_plain(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale, kgb_stream) {
  if (!supported(input, result)) return KGB_ERR_UNSUPPORTED;
  float absmax = 0.0f;
  for (int64_t t = 0; t < input->sizes[0]; ++t) absmax = fmaxf(absmax, row_absmax(input, t));
  const float s = absmax / kFp8Max;
  static_cast<float*>(scale->data)[0] = s;
  const float inv_scale = 1.0f / s;
  for (int64_t t = 0; t < input->sizes[0]; ++t) quantize_row(result, input, t, inv_scale, false);
  return KGB_OK;
}

int dynamic_per_token_plain(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale, const kgb_tensor* scale_ub,
                            kgb_stream) {
  if (!supported(input, result)) return KGB_ERR_UNSUPPORTED;
  const float min_scale = 1.0f / (kFp8Max * 512.0f);
  for (int64_t t = 0; t < input->sizes[0]; ++t) {
    float absmax = row_absmax(input, t);
    if (scale_ub) absmax = fminf(absmax, static_cast<const float*>(scale_ub->data)[0]);
    const float s = fmaxf(absmax / kFp8Max, min_scale);
    static_cast<float*>(scale->data)[t * scale->strides[0]] = s;
    quantize_row(result, input, t, s, true);
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(vllm_scaled_fp8_quant, "plain (written here)", static_plain);
KGB_BASELINE(vllm_scaled_fp8_quant_dynamic, "plain (written here)", dynamic_plain);
KGB_BASELINE(vllm_scaled_fp8_quant_dynamic_per_token, "plain (written here)", dynamic_per_token_plain);
