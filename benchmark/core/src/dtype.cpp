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
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}


bool is_floating(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64; }
bool is_complex(DType t) { return t == DType::C64 || t == DType::C128; }
bool is_integral(DType t) { return t == DType::Bool || t == DType::I8 || t == DType::I32 || t == DType::I64; }

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

}  // namespace kgb
