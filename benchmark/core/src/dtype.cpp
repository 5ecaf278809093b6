#include "kgb/dtype.h"

#include <bit>
#include <cmath>

namespace kgb {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I8: return "i8";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    case DType::C64: return "c64";
    case DType::C128: return "c128";
    case DType::U8: return "u8";
    case DType::I16: return "i16";
    case DType::F8E4M3FN: return "f8e4m3fn";
    case DType::F8E5M2: return "f8e5m2";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}


bool is_floating(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64 || is_fp8(t);
}
bool is_fp8(DType t) { return t == DType::F8E4M3FN || t == DType::F8E5M2; }
bool is_complex(DType t) { return t == DType::C64 || t == DType::C128; }
bool is_integral(DType t) {
  return t == DType::Bool || t == DType::I8 || t == DType::I32 || t == DType::I64 || t == DType::U8 || t == DType::I16;
}

std::string_view dtype_c_type(DType t) {
  switch (t) {
    case DType::Bool: return "uint8_t (0 or 1)";
    case DType::I8: return "int8_t";
    case DType::I32: return "int32_t";
    case DType::I64: return "int64_t";
    case DType::F16: return "uint16_t holding an IEEE binary16 half";
    case DType::BF16: return "uint16_t holding a bfloat16 (upper 16 bits of a float)";
    case DType::F32: return "float";
    case DType::F64: return "double";
    case DType::C64: return "two floats (real, imaginary)";
    case DType::C128: return "two doubles (real, imaginary)";
    case DType::U8: return "uint8_t";
    case DType::I16: return "int16_t";
    case DType::F8E4M3FN: return "uint8_t holding an OCP FP8 E4M3FN (bias 7, no Inf, NaN = S.1111.111, max 448)";
    case DType::F8E5M2: return "uint8_t holding an OCP FP8 E5M2 (bias 15, IEEE Inf/NaN, max 57344)";
  }
  return "?";
}

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {  // Inf or NaN: keep NaN quiet and non-zero
    return static_cast<uint16_t>(sign | 0x7C00u | (abs > 0x7F800000u ? 0x0200u | ((abs >> 13) & 0x3FFu) : 0u));
  }
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to Inf
  if (abs < 0x38800000u) {  // subnormal half (or zero): round the shifted mantissa to nearest even
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // below half of the smallest subnormal
    uint32_t exponent = abs >> 23;
    uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
    uint32_t shift = 126 - exponent;  // 14 + (112 - exponent) + ... gives bits below the half subnormal lsb
    uint32_t value = mantissa >> shift;
    uint32_t remainder = mantissa & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (value & 1u))) ++value;
    return static_cast<uint16_t>(sign | value);
  }
  uint32_t rounded = abs + 0xFFFu + ((abs >> 13) & 1u);  // round to nearest even on bit 13
  rounded -= 0x38000000u;                                 // rebias exponent 127 -> 15
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: value = mantissa * 2^-24
      float v = std::ldexp(static_cast<float>(mantissa), -24);
      return sign ? -v : v;
    }
  } else if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

uint16_t float_to_bfloat16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);  // quiet NaN
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

float bfloat16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

namespace {

// A binary floating-point format narrower than double, as far as rounding
// from double needs it: precision and exponent range.
struct NarrowFormat {
  int mantissa_bits;   // stored fraction bits
  int min_exponent;    // exponent of the smallest normal number
  double largest;      // largest finite value
};

// Rounds |d| (finite, >= 0) to the format's grid with round-to-nearest-even,
// ignoring overflow: the result may exceed `largest`.
double round_to_grid(double a, const NarrowFormat& f) {
  if (a == 0) return 0;
  int e = std::ilogb(a);
  if (e < f.min_exponent) e = f.min_exponent;  // subnormals share the smallest normal's quantum
  const double quantum = std::ldexp(1.0, e - f.mantissa_bits);
  return std::nearbyint(a / quantum) * quantum;  // exact division by a power of two; default mode is to-nearest-even
}

}  // namespace

uint16_t double_to_half(double d) {
  if (std::isnan(d)) return float_to_half(static_cast<float>(d));
  constexpr NarrowFormat f16{10, -14, 65504.0};
  const double a = std::fabs(d);
  const double r = std::isinf(a) ? a : round_to_grid(a, f16);
  // r is exactly representable as a half (or overflows to infinity), so the float path is exact.
  const float rf = r > f16.largest ? INFINITY : static_cast<float>(r);
  return float_to_half(std::signbit(d) ? -rf : rf);
}

uint16_t double_to_bfloat16(double d) {
  if (std::isnan(d)) return float_to_bfloat16(static_cast<float>(d));
  constexpr NarrowFormat bf16{7, -126, 3.38953138925153547590470800371487866880e38};
  const double a = std::fabs(d);
  const double r = std::isinf(a) ? a : round_to_grid(a, bf16);
  const float rf = r > bf16.largest ? INFINITY : static_cast<float>(r);
  return float_to_bfloat16(std::signbit(d) ? -rf : rf);
}

namespace {

constexpr NarrowFormat kE4M3{3, -6, 448.0};
constexpr NarrowFormat kE5M2{2, -14, 57344.0};

double decode_fp8(uint8_t bits, int exponent_bits, int mantissa_bits, int bias) {
  const bool negative = bits & 0x80;
  const int exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1);
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  double v;
  if (exponent == 0) v = std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissa_bits);
  else v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -mantissa_bits), exponent - bias);
  return negative ? -v : v;
}

// Bits of a finite, already rounded magnitude.
uint8_t encode_fp8_magnitude(double r, int mantissa_bits, int bias, int min_exponent) {
  if (r == 0) return 0;
  int e = std::ilogb(r);
  if (e < min_exponent) return static_cast<uint8_t>(std::ldexp(r, -(min_exponent - mantissa_bits)));  // subnormal
  const int mantissa = static_cast<int>(std::ldexp(r, mantissa_bits - e)) - (1 << mantissa_bits);
  return static_cast<uint8_t>(((e + bias) << mantissa_bits) | mantissa);
}

}  // namespace

double fp8_e4m3fn_to_double(uint8_t bits) {
  if ((bits & 0x7F) == 0x7F) return std::copysign(std::nan(""), (bits & 0x80) ? -1.0 : 1.0);
  return decode_fp8(bits, 4, 3, 7);
}

double fp8_e5m2_to_double(uint8_t bits) {
  const int exponent = (bits >> 2) & 0x1F;
  if (exponent == 0x1F) {
    const double special = (bits & 0x3) ? std::nan("") : INFINITY;
    return (bits & 0x80) ? -special : special;
  }
  return decode_fp8(bits, 5, 2, 15);
}

uint8_t double_to_fp8_e4m3fn(double d, bool saturate) {
  const uint8_t sign = std::signbit(d) ? 0x80 : 0x00;
  if (std::isnan(d)) return sign | 0x7F;
  const double a = std::fabs(d);
  // Rounded first: 464, halfway between 448 and the step above it (480, the
  // NaN code), rounds to even, which is 448; only what rounds above 448
  // overflows.
  double r = std::isinf(a) ? a : round_to_grid(a, kE4M3);
  if (r > kE4M3.largest) {
    if (!saturate) return sign | 0x7F;
    r = kE4M3.largest;
  }
  return sign | encode_fp8_magnitude(r, 3, 7, kE4M3.min_exponent);
}

uint8_t double_to_fp8_e5m2(double d, bool saturate) {
  const uint8_t sign = std::signbit(d) ? 0x80 : 0x00;
  if (std::isnan(d)) return sign | 0x7F;  // the NaN code PyTorch and CUDA write
  const double a = std::fabs(d);
  double r = std::isinf(a) ? a : round_to_grid(a, kE5M2);
  if (r > kE5M2.largest) {
    if (!saturate) return sign | 0x7C;
    r = kE5M2.largest;
  }
  return sign | encode_fp8_magnitude(r, 2, 15, kE5M2.min_exponent);
}

}  // namespace kgb
