// Baseline for vllm/rms_norm: a plain, single-threaded C++ loop written here
// (vLLM's op is CUDA-only). It follows vLLM's kernel step by step: float sum
// of squares, inv_rms = 1 / sqrt(mean + eps) in float, the normalised value
// rounded to the element type, then multiplied by the weight and rounded again.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kgb_baseline.h"
#include "kgb_entries/vllm/rms_norm.h"

namespace {

float from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
uint32_t to_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16, em = h & 0x7FFFu;
  if (em >= 0x7C00u) return from_bits(sign | 0x7F800000u | ((em & 0x3FFu) << 13));
  if (em >= 0x0400u) return from_bits(sign | ((em << 13) + (112u << 23)));
  const float mag = static_cast<float>(em) * 5.9604644775390625e-8f;
  return sign ? -mag : mag;
}
uint16_t float_to_half(float f) {
  const uint32_t x = to_bits(f), ax = x & 0x7FFFFFFFu;
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  if (ax > 0x7F800000u) return sign | 0x7E00u;
  if (ax >= 0x47800000u) return sign | 0x7C00u;
  if (ax < 0x38800000u) return sign | static_cast<uint16_t>(to_bits(from_bits(ax) + 0.5f) - 0x3F000000u);
  return sign | static_cast<uint16_t>((ax - (112u << 23) + 0xFFFu + ((ax >> 13) & 1u)) >> 13);
}
float bf16_to_float(uint16_t b) { return from_bits(static_cast<uint32_t>(b) << 16); }
uint16_t float_to_bf16(float f) {
  const uint32_t x = to_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

float load(const kgb_tensor* t, int64_t off) {
  switch (t->dtype) {
    case KGB_F32: return static_cast<const float*>(t->data)[off];
    case KGB_F16: return half_to_float(static_cast<const uint16_t*>(t->data)[off]);
    default: return bf16_to_float(static_cast<const uint16_t*>(t->data)[off]);
  }
}
// Rounds a float to the tensor's element type (what a scalar_t cast does).
float round_to(const kgb_tensor* t, float v) {
  switch (t->dtype) {
    case KGB_F32: return v;
    case KGB_F16: return half_to_float(float_to_half(v));
    default: return bf16_to_float(float_to_bf16(v));
  }
}
void store(kgb_tensor* t, int64_t off, float v) {
  switch (t->dtype) {
    case KGB_F32: static_cast<float*>(t->data)[off] = v; break;
    case KGB_F16: static_cast<uint16_t*>(t->data)[off] = float_to_half(v); break;
    default: static_cast<uint16_t*>(t->data)[off] = float_to_bf16(v); break;
  }
}

int64_t row_offset(const kgb_tensor* t, int64_t r) {
  int64_t off = 0;
  for (int32_t d = t->rank - 2; d >= 0; --d) {
    off += (r % t->sizes[d]) * t->strides[d];
    r /= t->sizes[d];
  }
  return off;
}

int rms_norm_plain(kgb_tensor* out, const kgb_tensor* input, const kgb_tensor* weight, double epsilon_d, kgb_stream) {
  const float epsilon = static_cast<float>(epsilon_d);
  if (out->dtype != KGB_F32 && out->dtype != KGB_F16 && out->dtype != KGB_BF16) return KGB_ERR_UNSUPPORTED;
  const int64_t hidden = input->sizes[input->rank - 1];
  if (hidden == 0) return KGB_OK;
  const int64_t tokens = kgb_numel(input) / hidden;
  const int64_t is = input->strides[input->rank - 1], os = out->strides[out->rank - 1], ws = weight->strides[0];
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t ib = row_offset(input, t), ob = row_offset(out, t);
    float variance = 0.0f;
    for (int64_t j = 0; j < hidden; ++j) {
      const float x = load(input, ib + j * is);
      variance += x * x;
    }
    const float inv_rms = 1.0f / std::sqrt(variance / static_cast<float>(hidden) + epsilon);
    for (int64_t j = 0; j < hidden; ++j) {
      const float normed = round_to(out, load(input, ib + j * is) * inv_rms);
      store(out, ob + j * os, normed * load(weight, j * ws));
    }
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(vllm_rms_norm, "plain (written here)", rms_norm_plain);
