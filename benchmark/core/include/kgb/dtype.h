// Element types, their names and the half/bfloat16 conversions the references
// and the comparison need. Numeric values match kgb_dtype in kgb_kernel.h.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace kgb {

enum class DType : int32_t {
  Bool = 0, I8 = 1, I32 = 2, I64 = 3, F16 = 4, BF16 = 5, F32 = 6, F64 = 7, C64 = 8, C128 = 9,
  U8 = 10, I16 = 11, F8E4M3FN = 12, F8E5M2 = 13  // ABI v2
};

inline constexpr DType kAllDTypes[] = {DType::Bool, DType::I8,  DType::I32, DType::I64,  DType::F16,
                                       DType::BF16, DType::F32, DType::F64, DType::C64,  DType::C128,
                                       DType::U8,   DType::I16, DType::F8E4M3FN, DType::F8E5M2};

std::string_view dtype_name(DType t);  // "f32", "bf16", ...
std::optional<DType> parse_dtype(std::string_view name);
constexpr int32_t dtype_size(DType t) {
  switch (t) {
    case DType::Bool: case DType::I8: case DType::U8: case DType::F8E4M3FN: case DType::F8E5M2: return 1;
    case DType::I16: case DType::F16: case DType::BF16: return 2;
    case DType::I32: case DType::F32: return 4;
    case DType::I64: case DType::F64: case DType::C64: return 8;
    case DType::C128: return 16;
  }
  return 0;
}
bool is_floating(DType t);  // f8e4m3fn, f8e5m2, f16, bf16, f32, f64
bool is_fp8(DType t);
bool is_complex(DType t);
bool is_integral(DType t);  // bool and integers (signed and unsigned)
// The C type a candidate sees for the element, e.g. "float", "uint16_t (IEEE half)".
std::string_view dtype_c_type(DType t);

// IEEE binary16 <-> float, round to nearest even; NaN and Inf preserved.
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
// bfloat16 <-> float, round to nearest even; NaN stays NaN.
uint16_t float_to_bfloat16(float f);
float bfloat16_to_float(uint16_t b);
// Straight from double, rounded once to nearest even (going through float
// first can round twice and land one ulp off).
uint16_t double_to_half(double d);
uint16_t double_to_bfloat16(double d);

// 8-bit floats (OCP FP8). E4M3FN: bias 7, no infinities, NaN only S.1111.111,
// largest finite 448. E5M2: bias 15, IEEE infinities and NaNs, largest 57344.
// Decoding is exact and keeps the sign of NaN. Encoding rounds to nearest
// even, then handles what rounds beyond the largest finite value: with
// `saturate` (the OCP spec's saturation mode, CUDA's __NV_SATFINITE) it and
// infinities become the largest finite value; without it (PyTorch's casts,
// __NV_NOSAT) they become NaN (E4M3FN) or infinity (E5M2). NaN encodes as
// S.1111.111 (E4M3FN) and S.11111.11 (E5M2), as PyTorch writes them.
double fp8_e4m3fn_to_double(uint8_t bits);
double fp8_e5m2_to_double(uint8_t bits);
uint8_t double_to_fp8_e4m3fn(double d, bool saturate);
uint8_t double_to_fp8_e5m2(double d, bool saturate);

// Storage types used by host code for 16-bit floats.
struct Half { uint16_t bits; };
struct BFloat16 { uint16_t bits; };

}  // namespace kgb
