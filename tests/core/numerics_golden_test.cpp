// Golden values of the shared numerics: fp8 codecs against the OCP FP8 spec,
// f16/bf16 rounding from double, PyTorch's promotion table and result_type
// rule, and the input generator's first draws. Every expected value is a
// literal written here, not recomputed by the code under test, so a change of
// any of them shows up as a failure naming the value.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kgb/case.h"
#include "kgb/dtype.h"
#include "kgb/numerics.h"
#include "kgb/random.h"
#include "kgb/task.h"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The OCP FP8 spec's value of a finite code: (-1)^S * 2^(E - bias) * 1.M for
// E > 0, (-1)^S * 2^(1 - bias) * 0.M for E == 0, written as integer
// significand times a power of two.
double ocp_value(uint8_t code, int exponent_bits, int mantissa_bits, int bias) {
  const int e = (code >> mantissa_bits) & ((1 << exponent_bits) - 1);
  const int m = code & ((1 << mantissa_bits) - 1);
  const int significand = e == 0 ? m : (1 << mantissa_bits) + m;
  const double magnitude = std::ldexp(significand, (e == 0 ? 1 : e) - bias - mantissa_bits);
  return (code & 0x80) ? -magnitude : magnitude;
}

bool is_e4m3fn_nan(int code) { return (code & 0x7F) == 0x7F; }
bool is_e5m2_special(int code) { return (code & 0x7C) == 0x7C; }

}  // namespace

// ---- fp8 --------------------------------------------------------------------

TEST_CASE("fp8 e4m3fn: every code decodes to the OCP value") {
  CHECK(kgb::fp8_e4m3fn_to_double(0x00) == 0.0);
  CHECK_FALSE(std::signbit(kgb::fp8_e4m3fn_to_double(0x00)));
  CHECK(std::signbit(kgb::fp8_e4m3fn_to_double(0x80)));  // -0
  CHECK(kgb::fp8_e4m3fn_to_double(0x01) == 0.001953125);  // 2^-9, smallest subnormal
  CHECK(kgb::fp8_e4m3fn_to_double(0x07) == 0.013671875);  // 7 * 2^-9, largest subnormal
  CHECK(kgb::fp8_e4m3fn_to_double(0x08) == 0.015625);     // 2^-6, smallest normal
  CHECK(kgb::fp8_e4m3fn_to_double(0x38) == 1.0);
  CHECK(kgb::fp8_e4m3fn_to_double(0x39) == 1.125);
  CHECK(kgb::fp8_e4m3fn_to_double(0x40) == 2.0);
  CHECK(kgb::fp8_e4m3fn_to_double(0x77) == 240.0);  // E = 15 is an ordinary exponent in "fn"
  CHECK(kgb::fp8_e4m3fn_to_double(0x78) == 256.0);
  CHECK(kgb::fp8_e4m3fn_to_double(0x7E) == 448.0);  // largest finite
  CHECK(kgb::fp8_e4m3fn_to_double(0xFE) == -448.0);
  CHECK(kgb::fp8_e4m3fn_to_double(0xB8) == -1.0);
  CHECK(std::isnan(kgb::fp8_e4m3fn_to_double(0x7F)));
  CHECK(std::isnan(kgb::fp8_e4m3fn_to_double(0xFF)));
  for (int code = 0; code < 256; ++code) {
    CAPTURE(code);
    const double v = kgb::fp8_e4m3fn_to_double(static_cast<uint8_t>(code));
    CHECK(std::signbit(v) == ((code & 0x80) != 0));  // NaN keeps its sign too
    if (is_e4m3fn_nan(code)) {
      CHECK(std::isnan(v));
    } else {
      CHECK(v == ocp_value(static_cast<uint8_t>(code), 4, 3, 7));
    }
  }
}

TEST_CASE("fp8 e5m2: every code decodes to the OCP value") {
  CHECK(kgb::fp8_e5m2_to_double(0x01) == 0x1p-16);  // smallest subnormal
  CHECK(kgb::fp8_e5m2_to_double(0x03) == 0x3p-16);  // largest subnormal
  CHECK(kgb::fp8_e5m2_to_double(0x04) == 0x1p-14);  // smallest normal
  CHECK(kgb::fp8_e5m2_to_double(0x3C) == 1.0);
  CHECK(kgb::fp8_e5m2_to_double(0x3D) == 1.25);
  CHECK(kgb::fp8_e5m2_to_double(0x7B) == 57344.0);  // largest finite
  CHECK(kgb::fp8_e5m2_to_double(0xFB) == -57344.0);
  CHECK(kgb::fp8_e5m2_to_double(0x7C) == kInf);
  CHECK(kgb::fp8_e5m2_to_double(0xFC) == -kInf);
  CHECK(std::isnan(kgb::fp8_e5m2_to_double(0x7D)));
  CHECK(std::isnan(kgb::fp8_e5m2_to_double(0x7E)));
  CHECK(std::isnan(kgb::fp8_e5m2_to_double(0x7F)));
  CHECK(std::isnan(kgb::fp8_e5m2_to_double(0xFF)));
  for (int code = 0; code < 256; ++code) {
    CAPTURE(code);
    const double v = kgb::fp8_e5m2_to_double(static_cast<uint8_t>(code));
    CHECK(std::signbit(v) == ((code & 0x80) != 0));
    if (is_e5m2_special(code)) {
      CHECK(((code & 0x03) == 0 ? std::isinf(v) : std::isnan(v)));
    } else {
      CHECK(v == ocp_value(static_cast<uint8_t>(code), 5, 2, 15));
    }
  }
}

TEST_CASE("fp8: encoding a decoded code gives the code back") {
  for (int code = 0; code < 256; ++code) {
    CAPTURE(code);
    const auto c = static_cast<uint8_t>(code);
    if (!is_e4m3fn_nan(code)) {
      CHECK(kgb::double_to_fp8_e4m3fn(kgb::fp8_e4m3fn_to_double(c), false) == c);
      CHECK(kgb::double_to_fp8_e4m3fn(kgb::fp8_e4m3fn_to_double(c), true) == c);
    }
    if (!is_e5m2_special(code)) {
      CHECK(kgb::double_to_fp8_e5m2(kgb::fp8_e5m2_to_double(c), false) == c);
      CHECK(kgb::double_to_fp8_e5m2(kgb::fp8_e5m2_to_double(c), true) == c);
    }
  }
  // Infinities survive only without saturation.
  CHECK(kgb::double_to_fp8_e5m2(kgb::fp8_e5m2_to_double(0x7C), false) == 0x7C);
  CHECK(kgb::double_to_fp8_e5m2(kgb::fp8_e5m2_to_double(0xFC), false) == 0xFC);
}

TEST_CASE("fp8: ties round to the even code, normal and subnormal") {
  for (bool saturate : {false, true}) {
    CAPTURE(saturate);
    // e4m3fn normals: 1.0 (0x38), 1.125 (0x39), 1.25 (0x3A); steps of 2^-3 above 1.
    CHECK(kgb::double_to_fp8_e4m3fn(1.0625, saturate) == 0x38);
    CHECK(kgb::double_to_fp8_e4m3fn(std::nextafter(1.0625, 2.0), saturate) == 0x39);
    CHECK(kgb::double_to_fp8_e4m3fn(1.1875, saturate) == 0x3A);
    CHECK(kgb::double_to_fp8_e4m3fn(std::nextafter(1.1875, 0.0), saturate) == 0x39);
    CHECK(kgb::double_to_fp8_e4m3fn(-1.0625, saturate) == 0xB8);
    // The top binade: 384 (0x7C), 416 (0x7D), 448 (0x7E).
    CHECK(kgb::double_to_fp8_e4m3fn(400.0, saturate) == 0x7C);
    CHECK(kgb::double_to_fp8_e4m3fn(432.0, saturate) == 0x7E);
    // e4m3fn subnormals: steps of 2^-9.
    CHECK(kgb::double_to_fp8_e4m3fn(0x1p-10, saturate) == 0x00);  // half the smallest: to 0
    CHECK(kgb::double_to_fp8_e4m3fn(std::nextafter(0x1p-10, 1.0), saturate) == 0x01);
    CHECK(kgb::double_to_fp8_e4m3fn(0x3p-10, saturate) == 0x02);   // 1.5 steps: to 2
    CHECK(kgb::double_to_fp8_e4m3fn(0x5p-10, saturate) == 0x02);   // 2.5 steps: to 2
    CHECK(kgb::double_to_fp8_e4m3fn(0xFp-10, saturate) == 0x08);   // 7.5 steps: up into the normals
    // e5m2 normals: 1.0 (0x3C), 1.25 (0x3D), 1.5 (0x3E).
    CHECK(kgb::double_to_fp8_e5m2(1.125, saturate) == 0x3C);
    CHECK(kgb::double_to_fp8_e5m2(1.375, saturate) == 0x3E);
    CHECK(kgb::double_to_fp8_e5m2(std::nextafter(1.375, 0.0), saturate) == 0x3D);
    // e5m2 subnormals: steps of 2^-16.
    CHECK(kgb::double_to_fp8_e5m2(0x1p-17, saturate) == 0x00);
    CHECK(kgb::double_to_fp8_e5m2(0x3p-17, saturate) == 0x02);
    CHECK(kgb::double_to_fp8_e5m2(0x7p-17, saturate) == 0x04);  // 3.5 steps: up into the normals
  }
}

TEST_CASE("fp8: overflow saturates or gives NaN / infinity") {
  // e4m3fn. 460 is below the midpoint 464 between 448 and 480 (which would be
  // the NaN code); 464 itself is a tie and rounds to even, 448, as PyTorch
  // (c10::Float8_e4m3fn) and CUDA (__nv_cvt_double_to_fp8 with __NV_NOSAT,
  // overflow only above 0x1.Cp+8 + 0x1p+4) do. Anything above 464 overflows.
  CHECK(kgb::double_to_fp8_e4m3fn(448.0, false) == 0x7E);
  CHECK(kgb::double_to_fp8_e4m3fn(460.0, false) == 0x7E);
  CHECK(kgb::double_to_fp8_e4m3fn(460.0, true) == 0x7E);
  CHECK(kgb::double_to_fp8_e4m3fn(464.0, false) == 0x7E);
  CHECK(kgb::double_to_fp8_e4m3fn(464.0, true) == 0x7E);
  CHECK(kgb::double_to_fp8_e4m3fn(std::nextafter(464.0, 1e9), false) == 0x7F);
  CHECK(kgb::double_to_fp8_e4m3fn(std::nextafter(464.0, 1e9), true) == 0x7E);
  CHECK(kgb::double_to_fp8_e4m3fn(480.0, false) == 0x7F);
  CHECK(kgb::double_to_fp8_e4m3fn(480.0, true) == 0x7E);
  CHECK(kgb::double_to_fp8_e4m3fn(-1e6, false) == 0xFF);
  CHECK(kgb::double_to_fp8_e4m3fn(-1e6, true) == 0xFE);
  CHECK(kgb::double_to_fp8_e4m3fn(kInf, false) == 0x7F);
  CHECK(kgb::double_to_fp8_e4m3fn(kInf, true) == 0x7E);
  CHECK(kgb::double_to_fp8_e4m3fn(-kInf, false) == 0xFF);
  CHECK(kgb::double_to_fp8_e4m3fn(-kInf, true) == 0xFE);
  // e5m2: 61440 is halfway from 57344 (odd mantissa) to 65536: rounds up, overflows.
  CHECK(kgb::double_to_fp8_e5m2(57344.0, false) == 0x7B);
  CHECK(kgb::double_to_fp8_e5m2(std::nextafter(61440.0, 0.0), false) == 0x7B);
  CHECK(kgb::double_to_fp8_e5m2(61440.0, false) == 0x7C);
  CHECK(kgb::double_to_fp8_e5m2(61440.0, true) == 0x7B);
  CHECK(kgb::double_to_fp8_e5m2(-1e9, false) == 0xFC);
  CHECK(kgb::double_to_fp8_e5m2(-1e9, true) == 0xFB);
  // Saturation takes infinities to the largest finite value too (OCP spec,
  // __NV_SATFINITE); without it they stay infinite.
  CHECK(kgb::double_to_fp8_e5m2(kInf, false) == 0x7C);
  CHECK(kgb::double_to_fp8_e5m2(kInf, true) == 0x7B);
  CHECK(kgb::double_to_fp8_e5m2(-kInf, false) == 0xFC);
  CHECK(kgb::double_to_fp8_e5m2(-kInf, true) == 0xFB);
}

TEST_CASE("fp8: signed zero and the sign of NaN") {
  for (bool saturate : {false, true}) {
    CAPTURE(saturate);
    CHECK(kgb::double_to_fp8_e4m3fn(0.0, saturate) == 0x00);
    CHECK(kgb::double_to_fp8_e4m3fn(-0.0, saturate) == 0x80);
    CHECK(kgb::double_to_fp8_e4m3fn(-0x1p-11, saturate) == 0x80);  // rounds to zero, keeps the sign
    CHECK(kgb::double_to_fp8_e5m2(-0.0, saturate) == 0x80);
    CHECK(kgb::double_to_fp8_e5m2(-0x1p-18, saturate) == 0x80);
    CHECK(kgb::double_to_fp8_e4m3fn(kNaN, saturate) == 0x7F);
    CHECK(kgb::double_to_fp8_e4m3fn(-kNaN, saturate) == 0xFF);
    CHECK(kgb::double_to_fp8_e5m2(kNaN, saturate) == 0x7F);  // the NaN code PyTorch writes
    CHECK(kgb::double_to_fp8_e5m2(-kNaN, saturate) == 0xFF);
  }
  CHECK(std::signbit(kgb::fp8_e4m3fn_to_double(0xFF)));
  CHECK_FALSE(std::signbit(kgb::fp8_e4m3fn_to_double(0x7F)));
  CHECK(std::signbit(kgb::fp8_e5m2_to_double(0xFE)));
  CHECK_FALSE(std::signbit(kgb::fp8_e5m2_to_double(0x7E)));
}

// ---- f16 / bf16 from double -------------------------------------------------

TEST_CASE("double to f16 and bf16: ties to even") {
  CHECK(kgb::double_to_half(1.0 + 0x1p-11) == 0x3C00);      // halfway between 1 and 1 + 2^-10
  CHECK(kgb::double_to_half(1.0 + 0x3p-11) == 0x3C02);      // halfway, odd below: up
  CHECK(kgb::double_to_half(-(1.0 + 0x3p-11)) == 0xBC02);
  CHECK(kgb::double_to_half(2048.0 + 1.0) == 0x6800);       // 2049: halfway between 2048 and 2050
  CHECK(kgb::double_to_bfloat16(1.0 + 0x1p-8) == 0x3F80);
  CHECK(kgb::double_to_bfloat16(1.0 + 0x3p-8) == 0x3F82);
  CHECK(kgb::double_to_bfloat16(256.0 + 1.0) == 0x4380);    // 257: halfway between 256 and 258
}

TEST_CASE("double to f16 and bf16: rounded once, where going through float rounds twice") {
  // Just above a tie: the exact answer rounds up. Through float the 2^-40
  // is lost first (float keeps 24 bits), leaving an exact tie that rounds to
  // even, down: one ulp off.
  const double above_f16_tie = 1.0 + 0x1p-11 + 0x1p-40;
  CHECK(kgb::float_to_half(static_cast<float>(above_f16_tie)) == 0x3C00);  // the double rounding
  CHECK(kgb::double_to_half(above_f16_tie) == 0x3C01);
  CHECK(kgb::double_to_half(-above_f16_tie) == 0xBC01);
  const double above_bf16_tie = 1.0 + 0x1p-8 + 0x1p-30;
  CHECK(kgb::float_to_bfloat16(static_cast<float>(above_bf16_tie)) == 0x3F80);
  CHECK(kgb::double_to_bfloat16(above_bf16_tie) == 0x3F81);
  // And just below one: through float it becomes the tie and rounds to even, up.
  const double below_f16_tie = 1.0 + 0x3p-11 - 0x1p-40;
  CHECK(kgb::float_to_half(static_cast<float>(below_f16_tie)) == 0x3C02);
  CHECK(kgb::double_to_half(below_f16_tie) == 0x3C01);
}

TEST_CASE("double to f16 and bf16: overflow, subnormals, NaN") {
  CHECK(kgb::double_to_half(65504.0) == 0x7BFF);
  CHECK(kgb::double_to_half(std::nextafter(65520.0, 0.0)) == 0x7BFF);
  CHECK(kgb::double_to_half(65520.0) == 0x7C00);  // halfway to 65536, 65504 is odd: Inf
  CHECK(kgb::double_to_half(-65520.0) == 0xFC00);
  CHECK(kgb::double_to_half(1e300) == 0x7C00);
  CHECK(kgb::double_to_half(kInf) == 0x7C00);
  CHECK(kgb::double_to_half(-kInf) == 0xFC00);
  CHECK(kgb::double_to_half(0x1p-24) == 0x0001);   // smallest subnormal
  CHECK(kgb::double_to_half(0x1p-25) == 0x0000);   // half of it: to even, zero
  CHECK(kgb::double_to_half(std::nextafter(0x1p-25, 1.0)) == 0x0001);
  CHECK(kgb::double_to_half(0x3p-25) == 0x0002);   // 1.5 steps: to 2
  CHECK(kgb::double_to_half(0x1p-14 - 0x1p-25) == 0x0400);  // 1023.5 steps: up to the smallest normal
  CHECK(kgb::double_to_half(0x3FFp-24) == 0x03FF); // largest subnormal
  CHECK(kgb::double_to_half(5e-324) == 0x0000);
  CHECK(kgb::double_to_half(-5e-324) == 0x8000);
  CHECK(kgb::double_to_half(-0.0) == 0x8000);
  CHECK(kgb::double_to_bfloat16(0x1.FEp127) == 0x7F7F);  // largest finite bf16
  CHECK(kgb::double_to_bfloat16(0x1.FFp127) == 0x7F80);  // halfway to 2^128: Inf
  CHECK(kgb::double_to_bfloat16(std::nextafter(0x1.FFp127, 0.0)) == 0x7F7F);
  CHECK(kgb::double_to_bfloat16(1e300) == 0x7F80);
  CHECK(kgb::double_to_bfloat16(-kInf) == 0xFF80);
  CHECK(kgb::double_to_bfloat16(0x1p-133) == 0x0001);    // smallest subnormal
  CHECK(kgb::double_to_bfloat16(0x1p-134) == 0x0000);
  CHECK(kgb::double_to_bfloat16(0x3p-134) == 0x0002);
  CHECK(kgb::double_to_bfloat16(1e-300) == 0x0000);
  CHECK(kgb::double_to_bfloat16(-1e-300) == 0x8000);
  for (double nan : {kNaN, -kNaN}) {
    const uint16_t h = kgb::double_to_half(nan), b = kgb::double_to_bfloat16(nan);
    CHECK((h & 0x7C00) == 0x7C00);
    CHECK((h & 0x03FF) != 0);
    CHECK(((h & 0x8000) != 0) == std::signbit(nan));
    CHECK((b & 0x7F80) == 0x7F80);
    CHECK((b & 0x007F) != 0);
    CHECK(((b & 0x8000) != 0) == std::signbit(nan));
  }
}

// ---- promotion ----------------------------------------------------------------

namespace {

using kgb::DType;
constexpr DType b1 = DType::Bool, u1 = DType::U8, i1 = DType::I8, i2 = DType::I16, i4 = DType::I32,
                i8 = DType::I64, f2 = DType::F16, bf = DType::BF16, f4 = DType::F32, f8 = DType::F64,
                c4 = DType::C64, c8 = DType::C128, e4 = DType::F8E4M3FN, e5 = DType::F8E5M2;
// Where PyTorch refuses to promote.
constexpr std::optional<DType> no = std::nullopt;

constexpr DType kOrder[14] = {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8, e4, e5};

// torch.promote_types(row, column) in torch 2.x.
const std::optional<DType> kPromote[14][14] = {
    //     b1  u1  i1  i2  i4  i8  f2  bf  f4  f8  c4  c8  e4  e5
    /*b1*/ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8, no, no},
    /*u1*/ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8, no, no},
    /*i1*/ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8, no, no},
    /*i2*/ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8, no, no},
    /*i4*/ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c4, c8, no, no},
    /*i8*/ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8, no, no},
    /*f2*/ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c4, c8, no, no},
    /*bf*/ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c8, no, no},
    /*f4*/ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c8, no, no},
    /*f8*/ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, no, no},
    /*c4*/ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c8, no, no},
    /*c8*/ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, no, no},
    /*e4*/ {no, no, no, no, no, no, no, no, no, no, no, no, e4, no},
    /*e5*/ {no, no, no, no, no, no, no, no, no, no, no, no, no, e5},
};

std::string name_of(std::optional<DType> t) { return t ? std::string(kgb::dtype_name(*t)) : "refused"; }

kgb::Result<DType> result_of(std::initializer_list<kgb::Operand> operands) {
  return kgb::result_type(std::span<const kgb::Operand>(operands.begin(), operands.size()));
}

constexpr auto T = kgb::OperandKind::Tensor;
constexpr auto Z = kgb::OperandKind::ZeroDimTensor;
constexpr auto S = kgb::OperandKind::Scalar;

}  // namespace

TEST_CASE("promote_types equals torch.promote_types on all 14 x 14 pairs") {
  for (int r = 0; r < 14; ++r)
    for (int c = 0; c < 14; ++c) {
      CAPTURE(kgb::dtype_name(kOrder[r]));
      CAPTURE(kgb::dtype_name(kOrder[c]));
      CHECK(name_of(kgb::promote_types(kOrder[r], kOrder[c])) == name_of(kPromote[r][c]));
    }
}

TEST_CASE("float_of, widen, real_of and complex_of on every dtype") {
  // In kOrder: b1 u1 i1 i2 i4 i8 f2 bf f4 f8 c4 c8 e4 e5
  const DType floats[14] = {f4, f4, f4, f4, f4, f4, f2, bf, f4, f8, c4, c8, e4, e5};
  const DType widened[14] = {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8, e4, e5};
  const DType reals[14] = {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, f4, f8, e4, e5};
  const std::optional<DType> complexes[14] = {no, no, no, no, no, no, no, c4, c4, c8, c4, c8, no, no};
  for (int i = 0; i < 14; ++i) {
    CAPTURE(kgb::dtype_name(kOrder[i]));
    CHECK(kgb::float_of(kOrder[i]) == floats[i]);
    CHECK(kgb::widen(kOrder[i]) == widened[i]);
    CHECK(kgb::real_of(kOrder[i]) == reals[i]);
    CHECK(name_of(kgb::complex_of(kOrder[i])) == name_of(complexes[i]));
  }
}

TEST_CASE("result_type: categories, then dimensioned tensors over zero-dim tensors over scalars") {
  struct Row {
    std::vector<kgb::Operand> operands;
    std::optional<DType> expected;  // nullopt: an error
  };
  const Row rows[] = {
      // One kind alone promotes as promote_types.
      {{{i4, T}, {i8, T}}, i8},
      {{{u1, T}, {i1, T}}, i2},
      {{{f2, T}, {bf, T}}, f4},
      {{{i2, T}, {i4, T}, {u1, Z}}, i4},
      // Same category: the higher kind wins whatever the width.
      {{{f2, T}, {f8, Z}}, f2},
      {{{u1, T}, {i8, Z}}, u1},
      {{{i1, T}, {i8, S}}, i1},
      {{{u1, T}, {i8, S}}, u1},
      {{{c4, T}, {c8, Z}}, c4},
      {{{f4, Z}, {f8, S}}, f4},
      // A higher category below is promoted with the tensor.
      {{{i4, T}, {f8, S}}, f4},   // a float scalar counts as the default f32
      {{{i8, T}, {f8, Z}}, f8},
      {{{i4, T}, {f2, Z}}, f2},
      {{{i4, Z}, {f8, S}}, f4},
      {{{b1, T}, {i8, S}}, i8},
      {{{b1, T}, {b1, S}}, b1},
      {{{b1, T}, {u1, Z}}, u1},
      // A complex below: integers take it as it is, floats take their complex type.
      {{{i1, T}, {c8, Z}}, c8},
      {{{i4, T}, {c8, S}}, c4},   // a complex scalar counts as c64
      {{{f8, T}, {c4, Z}}, c8},
      {{{f8, T}, {c8, S}}, c8},
      {{{bf, T}, {c8, S}}, c4},
      {{{f4, T}, {c8, Z}}, c4},
      {{{f2, T}, {c8, S}}, no},   // complex32 in PyTorch: no KGB dtype
      {{{f2, Z}, {c8, S}}, no},
      {{{f4, T}, {f2, Z}, {c8, S}}, c4},  // complex32 in between, c64 in the end
      {{{f8, T}, {f2, Z}, {c8, S}}, c8},
      {{{i4, T}, {f2, Z}, {c8, S}}, no},
      // Scalars alone.
      {{{f8, S}}, f4},
      {{{c8, S}}, c4},
      {{{i8, S}, {f8, S}}, f4},
      {{{b1, S}}, b1},
      {{{i8, S}, {b1, S}}, i8},
      {{{i8, S}}, i8},
      // float8: fine while nothing has to promote it with another dtype.
      {{{e4, T}, {f8, S}}, e4},
      {{{e4, T}, {e4, Z}}, e4},
      {{{e4, T}, {e5, Z}}, e4},
      {{{e4, T}, {f4, T}}, no},
      {{{i4, T}, {e5, Z}}, no},
      // Nothing to promote.
      {{}, no},
  };
  for (const Row& row : rows) {
    std::string text;
    for (const auto& o : row.operands)
      text += std::string(kgb::dtype_name(o.dtype)) + (o.kind == T ? "[n] " : o.kind == Z ? "[] " : " scalar ");
    CAPTURE(text);
    const auto got = kgb::result_type(row.operands);
    if (row.expected) {
      REQUIRE_MESSAGE(got.ok(), got.error().message);
      CHECK(kgb::dtype_name(*got) == kgb::dtype_name(*row.expected));
    } else {
      CHECK_FALSE(got.ok());
      if (!got.ok()) CHECK(got.error().code == "dtype.promotion");
    }
  }
  // The error says which dtypes met.
  const auto fp8_mix = result_of({{e4, T}, {f4, T}});
  REQUIRE_FALSE(fp8_mix.ok());
  CHECK(fp8_mix.error().message.find("f8e4m3fn") != std::string::npos);
  CHECK(fp8_mix.error().message.find("f32") != std::string::npos);
}

// ---- the input generator -----------------------------------------------------

TEST_CASE("SplitMix64 and standard_normal: the first draws") {
  kgb::SplitMix64 zero{0};  // the published SplitMix64 sequence from seed 0
  CHECK(zero() == 0xE220A8397B1DCDAFull);
  CHECK(zero() == 0x6E789E6AA1B965F4ull);
  CHECK(zero() == 0x06C45D188009454Full);
  CHECK(zero() == 0xF88BB8A8724C81ECull);
  kgb::SplitMix64 g{42};
  CHECK(g() == 0xBDD732262FEB6E95ull);
  CHECK(g() == 0x28EFE333B266F103ull);
  CHECK(g() == 0x47526757130F9F52ull);
  CHECK(g() == 0x581CE1FF0E4AE394ull);
  kgb::SplitMix64 n{42};
  const double normals[8] = {-0.47240144097262249, 0.13641891201949014,  0.99741822506217848, 0.61673149427542873,
                             0.18703375129871636,  -0.14723988599599575, 0.86056156839174669, -0.45893459131797315};
  for (double expected : normals) CHECK(kgb::standard_normal(n) == expected);
}

namespace {

// The instance of a task's correctness case, loaded from the source tree.
kgb::CaseInstance instance_of(const std::string& task_id, const std::string& case_name, DType dtype, uint64_t seed) {
  static const kgb::TaskLoadReport report = kgb::load_all_tasks(std::string(KGB_SOURCE_DIR) + "/benchmark/tasks");
  for (const auto& task : report.tasks) {
    if (task.id != task_id) continue;
    for (const auto& c : task.correctness) {
      if (c.name != case_name) continue;
      kgb::DTypeBinding binding;
      if (!task.type_variables.empty()) binding[task.type_variables.front().first] = dtype;
      auto inst = kgb::instantiate_case(task, c, binding, seed);
      REQUIRE_MESSAGE(inst.ok(), inst.error().message);
      return std::move(*inst);
    }
  }
  FAIL("no case " << case_name << " in " << task_id);
  return {};
}

void check_first(const kgb::HostTensor& t, const std::vector<double>& expected) {
  REQUIRE(t.numel() >= static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(t.get(static_cast<int64_t>(i)) == expected[i]);
  }
}

}  // namespace

// Inputs come from std::uniform_*_distribution of libstdc++ too (uniform,
// randint), whose algorithms the C++ standard leaves open: these values pin
// libstdc++'s (GCC 12).
TEST_CASE("instantiate_case: the first input values of existing tasks for fixed seeds") {
  SUBCASE("aten/softmax rows_odd f32 seed 42: normal") {
    auto inst = instance_of("aten/softmax", "rows_odd", DType::F32, 42);
    check_first(inst.tensors.at("self"),
                {0.38462194800376892, 0.47817492485046387, -3.080486536026001, -0.070990458130836487,
                 -2.5182247161865234, -0.38802310824394226, -0.056082937866449356, -1.7975475788116455});
  }
  SUBCASE("blas/saxpy prime_1009 f32 seed 7: two normal tensors") {
    auto inst = instance_of("blas/saxpy", "prime_1009", DType::F32, 7);
    check_first(inst.tensors.at("x"), {-1.2893604040145874, -0.04378056526184082, -0.17646098136901855,
                                       -0.083677604794502258, 0.81882190704345703, 1.1010032892227173});
    check_first(inst.tensors.at("y"), {-0.7945556640625, 2.3011438846588135, 0.42029616236686707,
                                       -0.74733006954193115, 0.25373059511184692, 0.89853978157043457});
    CHECK(inst.scalars.at("alpha").number() == 2.5);
  }
  SUBCASE("aten/bernoulli matrix_odd f32 seed 42: uniform and a random scalar") {
    auto inst = instance_of("aten/bernoulli", "matrix_odd", DType::F32, 42);
    check_first(inst.tensors.at("self"), {0.86141443252563477, 0.7847716212272644, 0.068669229745864868,
                                          0.14899590611457825, 0.60005247592926025, 0.15878912806510925});
    CHECK(inst.scalars.at("seed").i == 3400918176820830LL);
  }
  SUBCASE("aten/index_select rows_dim0 seed 42: randint index") {
    auto inst = instance_of("aten/index_select", "rows_dim0", DType::F32, 42);
    const auto& index = inst.tensors.at("index");
    const int64_t expected[20] = {11, 10, 0, 1, 7, 2, 9, 8, 12, 8, 1, 1, 12, 9, 6, 7, 2, 7, 8, 12};
    REQUIRE(index.numel() == 20);
    for (int i = 0; i < 20; ++i) CHECK(index.get_int(i) == expected[i]);
  }
}
