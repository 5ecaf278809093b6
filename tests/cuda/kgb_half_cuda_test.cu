// kgb_half.h under nvcc: this file's kernels compile it as sm_90 device code
// (the build is the compile test). On the host, where nvcc compiles the same
// functions as __host__ __device__, they are compared with the harness's
// codecs and with NVIDIA's own conversions (cuda_fp16.h, cuda_bf16.h,
// cuda_fp8.h, whose host paths are the reference implementations of the
// device instructions). With a CUDA device, the device code is run on every
// bit pattern and on the same floats; without one that part says it skipped.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "half_probes.h"
#include "kgb_abi_check.h"  // the ABI v2 layout, checked by nvcc
#include "kgb_half.h"

namespace {

// NVIDIA's conversions of one float, as far as they define the same thing.
struct Nvidia {
  static uint16_t f16(float f) { return __half_as_ushort(__float2half_rn(f)); }
  static uint16_t bf16(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }
  static uint8_t fp8(float f, __nv_saturation_t sat, __nv_fp8_interpretation_t kind) {
    return __nv_cvt_float_to_fp8(f, sat, kind);
  }
  static float from_fp8(uint8_t b, __nv_fp8_interpretation_t kind) {
    return __half2float(__half(__nv_cvt_fp8_to_halfraw(b, kind)));
  }
};

bool is_nan16(uint16_t h, bool bf16) { return bf16 ? (h & 0x7FFF) > 0x7F80 : (h & 0x7FFF) > 0x7C00; }
bool is_nan_e4m3(uint8_t b) { return (b & 0x7F) == 0x7F; }
bool is_nan_e5m2(uint8_t b) { return (b & 0x7F) > 0x7C; }

// NaN results compare as NaN: NVIDIA writes one canonical NaN, KGB keeps sign and payload.
bool same16(uint16_t got, uint16_t want, bool bf16) {
  return is_nan16(want, bf16) ? is_nan16(got, bf16) : got == want;
}

__global__ void decode_kernel(const uint16_t* in, float* f16, float* bf16, float* e4m3fn, float* e5m2, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  f16[i] = kgb_f16_to_float(in[i]);
  bf16[i] = kgb_bf16_to_float(in[i]);
  e4m3fn[i] = kgb_f8e4m3fn_to_float(static_cast<uint8_t>(in[i]));
  e5m2[i] = kgb_f8e5m2_to_float(static_cast<uint8_t>(in[i]));
}

__global__ void encode_kernel(const float* in, kgb_test::Encoded* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float f = in[i];
  out[i] = {kgb_float_to_f16(f),       kgb_float_to_bf16(f),    kgb_float_to_f8e4m3fn(f),
            kgb_float_to_f8e4m3fn_sat(f), kgb_float_to_f8e5m2(f), kgb_float_to_f8e5m2_sat(f)};
}

bool have_device() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace

TEST_CASE("kgb_half.h compiled by nvcc: host results equal the harness's codecs") {
  for (uint32_t p = 0; p < 65536; ++p) {
    const auto h = static_cast<uint16_t>(p);
    if (!kgb_test::same_float(kgb_f16_to_float(h), kgb_test::f16_value(p))) FAIL_CHECK("f16 " << p);
    if (!kgb_test::same_float(kgb_bf16_to_float(h), kgb_test::bf16_value(p))) FAIL_CHECK("bf16 " << p);
  }
  int64_t mismatches = 0;
  for (float f : kgb_test::encoder_inputs(1'000'000)) {
    const kgb_test::Encoded got{kgb_float_to_f16(f),          kgb_float_to_bf16(f),   kgb_float_to_f8e4m3fn(f),
                                kgb_float_to_f8e4m3fn_sat(f), kgb_float_to_f8e5m2(f), kgb_float_to_f8e5m2_sat(f)};
    const kgb_test::Encoded want = kgb_test::expected_encoding(f);
    if (!(got == want) && ++mismatches <= 10) FAIL_CHECK(f << ": " << kgb_test::describe_mismatch(got, want));
  }
  CHECK(mismatches == 0);
}

TEST_CASE("kgb_half.h agrees with NVIDIA's conversions (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h)") {
  for (uint32_t p = 0; p < 256; ++p) {
    const auto b = static_cast<uint8_t>(p);
    CAPTURE(p);
    // NVIDIA decodes every NaN code to one positive NaN; KGB keeps the sign.
    const float e4m3fn = Nvidia::from_fp8(b, __NV_E4M3), e5m2 = Nvidia::from_fp8(b, __NV_E5M2);
    CHECK((std::isnan(e4m3fn) ? std::isnan(kgb_f8e4m3fn_to_float(b)) : kgb_test::same_float(kgb_f8e4m3fn_to_float(b), e4m3fn)));
    CHECK((std::isnan(e5m2) ? std::isnan(kgb_f8e5m2_to_float(b)) : kgb_test::same_float(kgb_f8e5m2_to_float(b), e5m2)));
  }
  int64_t mismatches = 0;
  for (float f : kgb_test::encoder_inputs(1'000'000)) {
    const bool ok =
        same16(kgb_float_to_f16(f), Nvidia::f16(f), false) && same16(kgb_float_to_bf16(f), Nvidia::bf16(f), true) &&
        (std::isnan(f) ? is_nan_e4m3(kgb_float_to_f8e4m3fn(f)) && is_nan_e4m3(kgb_float_to_f8e4m3fn_sat(f)) &&
                             is_nan_e5m2(kgb_float_to_f8e5m2(f)) && is_nan_e5m2(kgb_float_to_f8e5m2_sat(f))
                       : kgb_float_to_f8e4m3fn(f) == Nvidia::fp8(f, __NV_NOSAT, __NV_E4M3) &&
                             kgb_float_to_f8e4m3fn_sat(f) == Nvidia::fp8(f, __NV_SATFINITE, __NV_E4M3) &&
                             kgb_float_to_f8e5m2(f) == Nvidia::fp8(f, __NV_NOSAT, __NV_E5M2) &&
                             kgb_float_to_f8e5m2_sat(f) == Nvidia::fp8(f, __NV_SATFINITE, __NV_E5M2));
    if (!ok && ++mismatches <= 10) {
      CAPTURE(f);
      CAPTURE(kgb_test::float_bits(f));
      CHECK(kgb_float_to_f16(f) == Nvidia::f16(f));
      CHECK(kgb_float_to_bf16(f) == Nvidia::bf16(f));
      CHECK(int(kgb_float_to_f8e4m3fn(f)) == int(Nvidia::fp8(f, __NV_NOSAT, __NV_E4M3)));
      CHECK(int(kgb_float_to_f8e4m3fn_sat(f)) == int(Nvidia::fp8(f, __NV_SATFINITE, __NV_E4M3)));
      CHECK(int(kgb_float_to_f8e5m2(f)) == int(Nvidia::fp8(f, __NV_NOSAT, __NV_E5M2)));
      CHECK(int(kgb_float_to_f8e5m2_sat(f)) == int(Nvidia::fp8(f, __NV_SATFINITE, __NV_E5M2)));
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("kgb_half.h in sm_90 device code: the same results on a CUDA device") {
  if (!have_device()) {
    MESSAGE("device part skipped: no CUDA device (the sm_90 device code compiled)");
    return;
  }
  std::vector<uint16_t> patterns(65536);
  for (uint32_t p = 0; p < 65536; ++p) patterns[p] = static_cast<uint16_t>(p);
  const std::vector<float> inputs = kgb_test::encoder_inputs(1'000'000);
  const int np = static_cast<int>(patterns.size()), ni = static_cast<int>(inputs.size());
  uint16_t* d_patterns = nullptr;
  float *d_decoded = nullptr, *d_inputs = nullptr;
  kgb_test::Encoded* d_encoded = nullptr;
  REQUIRE(cudaMalloc(&d_patterns, np * sizeof(uint16_t)) == cudaSuccess);
  REQUIRE(cudaMalloc(&d_decoded, 4 * np * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&d_inputs, ni * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&d_encoded, ni * sizeof(kgb_test::Encoded)) == cudaSuccess);
  cudaMemcpy(d_patterns, patterns.data(), np * sizeof(uint16_t), cudaMemcpyHostToDevice);
  cudaMemcpy(d_inputs, inputs.data(), ni * sizeof(float), cudaMemcpyHostToDevice);
  decode_kernel<<<(np + 255) / 256, 256>>>(d_patterns, d_decoded, d_decoded + np, d_decoded + 2 * np,
                                           d_decoded + 3 * np, np);
  encode_kernel<<<(ni + 255) / 256, 256>>>(d_inputs, d_encoded, ni);
  std::vector<float> decoded(4 * np);
  std::vector<kgb_test::Encoded> encoded(ni);
  REQUIRE(cudaMemcpy(decoded.data(), d_decoded, decoded.size() * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  REQUIRE(cudaMemcpy(encoded.data(), d_encoded, ni * sizeof(kgb_test::Encoded), cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  cudaFree(d_patterns);
  cudaFree(d_decoded);
  cudaFree(d_inputs);
  cudaFree(d_encoded);
  int64_t mismatches = 0;
  for (int p = 0; p < np; ++p) {
    const bool ok = kgb_test::same_float(decoded[p], kgb_test::f16_value(p)) &&
                    kgb_test::same_float(decoded[np + p], kgb_test::bf16_value(p)) &&
                    kgb_test::same_float(decoded[2 * np + p], kgb_test::e4m3fn_value(p & 0xFF)) &&
                    kgb_test::same_float(decoded[3 * np + p], kgb_test::e5m2_value(p & 0xFF));
    if (!ok && ++mismatches <= 10) FAIL_CHECK("device decode of pattern " << p);
  }
  for (int i = 0; i < ni; ++i)
    if (const auto want = kgb_test::expected_encoding(inputs[i]); !(encoded[i] == want) && ++mismatches <= 10)
      FAIL_CHECK("device, " << inputs[i] << ": " << kgb_test::describe_mismatch(encoded[i], want));
  CHECK(mismatches == 0);
}

TEST_CASE("kgb_kernel.h: the ABI v2 layout and helpers under nvcc") {
  CHECK(kgb_abi_check_helpers() == 18);  // 12 elements + contiguous + 1 byte + 4 + KGB_OK
}
