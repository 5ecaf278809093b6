// kgb_half.h, the kernels' conversion helpers, against the harness's own
// codecs (kgb/dtype.h): every bit pattern of each format, every tie and its
// neighbours, and millions of random floats. The same comparison runs on an
// OpenCL device (tests/opencl) and in CUDA code (tests/cuda).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "half_probes.h"
#include "kgb_half.h"

using kgb_test::float_bits;
using kgb_test::same_float;

namespace {

kgb_test::Encoded encode(float f) {
  return {kgb_float_to_f16(f),      kgb_float_to_bf16(f),    kgb_float_to_f8e4m3fn(f),
          kgb_float_to_f8e4m3fn_sat(f), kgb_float_to_f8e5m2(f), kgb_float_to_f8e5m2_sat(f)};
}

void check_encoders(const std::vector<float>& inputs) {
  int64_t mismatches = 0;
  for (float f : inputs) {
    const kgb_test::Encoded got = encode(f), want = kgb_test::expected_encoding(f);
    if (!(got == want) && ++mismatches <= 10)
      FAIL_CHECK(f << " (bits " << float_bits(f) << "): " << kgb_test::describe_mismatch(got, want));
  }
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("kgb_half.h decoders: every bit pattern as the harness decodes it") {
  for (uint32_t p = 0; p < 65536; ++p) {
    const auto h = static_cast<uint16_t>(p);
    if (!same_float(kgb_f16_to_float(h), kgb::half_to_float(h))) FAIL_CHECK("f16 " << p);
    if (float_bits(kgb_bf16_to_float(h)) != float_bits(kgb::bfloat16_to_float(h))) FAIL_CHECK("bf16 " << p);
  }
  for (uint32_t p = 0; p < 256; ++p) {
    const auto b = static_cast<uint8_t>(p);
    CAPTURE(p);
    CHECK(same_float(kgb_f8e4m3fn_to_float(b), kgb_test::e4m3fn_value(p)));
    CHECK(same_float(kgb_f8e5m2_to_float(b), kgb_test::e5m2_value(p)));
  }
  // A signalling NaN comes out quiet, as hardware conversions deliver it.
  CHECK((float_bits(kgb_f16_to_float(0x7C01)) & 0x00400000u) != 0);
  CHECK((float_bits(kgb_f8e5m2_to_float(0x7D)) & 0x00400000u) != 0);
}

TEST_CASE("kgb_half.h encoders: ties, their neighbours and the overflow edges of every format") {
  check_encoders(kgb_test::encoder_inputs(0));
}

TEST_CASE("kgb_half.h encoders: four million random floats") { check_encoders(kgb_test::random_floats(4'000'000)); }

TEST_CASE("kgb_half.h encoders agree with the harness's float paths too") {
  for (float f : kgb_test::random_floats(200'000, 7)) {
    CAPTURE(f);
    CHECK(kgb_float_to_f16(f) == kgb::float_to_half(f));
    CHECK(kgb_float_to_bf16(f) == kgb::float_to_bfloat16(f));
  }
}

TEST_CASE("kgb_half.h: the spot values of the OCP formats and the saturation rules") {
  CHECK(kgb_float_to_f8e4m3fn(448.0f) == 0x7E);
  CHECK(kgb_float_to_f8e4m3fn(464.0f) == 0x7E);  // a tie, to even
  CHECK(kgb_float_to_f8e4m3fn(465.0f) == 0x7F);
  CHECK(kgb_float_to_f8e4m3fn_sat(465.0f) == 0x7E);
  CHECK(kgb_float_to_f8e4m3fn(-INFINITY) == 0xFF);
  CHECK(kgb_float_to_f8e4m3fn_sat(-INFINITY) == 0xFE);
  CHECK(kgb_float_to_f8e5m2(61440.0f) == 0x7C);
  CHECK(kgb_float_to_f8e5m2_sat(61440.0f) == 0x7B);
  CHECK(kgb_float_to_f8e5m2_sat(INFINITY) == 0x7B);
  CHECK(kgb_float_to_f16(65520.0f) == 0x7C00);
  CHECK(kgb_float_to_bf16(-0.0f) == 0x8000);
  CHECK(kgb_f8e4m3fn_to_float(0x01) == 0x1p-9f);
  CHECK(kgb_f8e5m2_to_float(0x7B) == 57344.0f);
}
