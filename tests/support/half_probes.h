// Inputs and expected results for testing 16- and 8-bit float conversions
// (kgb_half.h on the CPU, an OpenCL device and CUDA) against the harness's
// codecs in kgb/dtype.h. Header-only, C++17, so nvcc can compile it too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/random.h"

namespace kgb_test {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Equal bits, or both NaN with the same sign (NaN payloads may differ).
inline bool same_float(float got, float want) {
  if (std::isnan(want)) return std::isnan(got) && std::signbit(got) == std::signbit(want);
  return float_bits(got) == float_bits(want);
}

// The harness's value of each bit pattern of each format.
inline float f16_value(uint32_t p) { return kgb::half_to_float(static_cast<uint16_t>(p)); }
inline float bf16_value(uint32_t p) { return kgb::bfloat16_to_float(static_cast<uint16_t>(p)); }
inline float e4m3fn_value(uint32_t p) { return static_cast<float>(kgb::fp8_e4m3fn_to_double(static_cast<uint8_t>(p))); }
inline float e5m2_value(uint32_t p) { return static_cast<float>(kgb::fp8_e5m2_to_double(static_cast<uint8_t>(p))); }

// Floats where rounding decides, for a format with `patterns` bit patterns:
// every finite value, the midpoints between neighbours (above the largest:
// the midpoint to where the next step would be) and the floats next to the
// midpoints, with both signs; plus zero, the extremes of float and specials.
inline std::vector<float> rounding_probes(uint32_t patterns, float (*value)(uint32_t)) {
  std::vector<double> values;
  for (uint32_t p = 0; p < patterns; ++p) {
    const float v = value(p);
    if (std::isfinite(v) && !std::signbit(v)) values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  std::vector<float> probes = {0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()};
  for (size_t i = 0; i < values.size(); ++i) {
    const double next = i + 1 < values.size() ? values[i + 1] : 2 * values[i] - values[i - 1];
    const auto mid = static_cast<float>((values[i] + next) / 2);  // exact: the formats are narrower than float
    probes.push_back(static_cast<float>(values[i]));
    probes.push_back(mid);
    probes.push_back(std::nextafter(mid, 0.0f));
    probes.push_back(std::nextafter(mid, std::numeric_limits<float>::infinity()));
  }
  const size_t n = probes.size();
  for (size_t i = 0; i < n; ++i) probes.push_back(-probes[i]);
  return probes;
}

// Random floats: uniformly random bit patterns (every exponent, NaNs
// included), alternating with magnitudes spread over 2^-30 .. 2^29, the
// ranges of the 16- and 8-bit formats.
inline std::vector<float> random_floats(size_t count, uint64_t seed = 20240601) {
  kgb::SplitMix64 g{seed};
  std::vector<float> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t r = g();
    if (i % 2 == 0) {
      out.push_back(bits_float(static_cast<uint32_t>(r)));
    } else {
      const int exponent = static_cast<int>((r >> 32) % 60) - 30;
      const float v = std::ldexp(1.0f + static_cast<float>(r & 0x7FFFFF) * 0x1p-23f, exponent);
      out.push_back((r >> 63) ? -v : v);
    }
  }
  return out;
}

// The rounding probes of all four formats followed by `random_count` random floats.
inline std::vector<float> encoder_inputs(size_t random_count) {
  std::vector<float> out;
  for (auto [patterns, value] : {std::pair{65536u, &f16_value}, std::pair{65536u, &bf16_value},
                                 std::pair{256u, &e4m3fn_value}, std::pair{256u, &e5m2_value}}) {
    const auto probes = rounding_probes(patterns, value);
    out.insert(out.end(), probes.begin(), probes.end());
  }
  const auto random = random_floats(random_count);
  out.insert(out.end(), random.begin(), random.end());
  return out;
}

// What every encoder must give for one float: the harness's conversions of
// the same value (as a double, so each rounds once).
struct Encoded {
  uint16_t f16, bf16;
  uint8_t e4m3fn, e4m3fn_sat, e5m2, e5m2_sat;
  bool operator==(const Encoded& o) const {
    return f16 == o.f16 && bf16 == o.bf16 && e4m3fn == o.e4m3fn && e4m3fn_sat == o.e4m3fn_sat && e5m2 == o.e5m2 &&
           e5m2_sat == o.e5m2_sat;
  }
};

// Which encodings differ, e.g. "f16 0x3c00 (want 0x3c01) e5m2 0x7f (want 0x7e)".
inline std::string describe_mismatch(const Encoded& got, const Encoded& want) {
  std::string out;
  const auto field = [&](const char* name, unsigned g, unsigned w) {
    if (g == w) return;
    char text[64];
    std::snprintf(text, sizeof text, "%s%s 0x%x (want 0x%x)", out.empty() ? "" : " ", name, g, w);
    out += text;
  };
  field("f16", got.f16, want.f16);
  field("bf16", got.bf16, want.bf16);
  field("e4m3fn", got.e4m3fn, want.e4m3fn);
  field("e4m3fn_sat", got.e4m3fn_sat, want.e4m3fn_sat);
  field("e5m2", got.e5m2, want.e5m2);
  field("e5m2_sat", got.e5m2_sat, want.e5m2_sat);
  return out;
}

inline Encoded expected_encoding(float f) {
  const double d = f;
  return {kgb::double_to_half(d),
          kgb::double_to_bfloat16(d),
          kgb::double_to_fp8_e4m3fn(d, false),
          kgb::double_to_fp8_e4m3fn(d, true),
          kgb::double_to_fp8_e5m2(d, false),
          kgb::double_to_fp8_e5m2(d, true)};
}

}  // namespace kgb_test
