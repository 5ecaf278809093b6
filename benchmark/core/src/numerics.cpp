#include "kgb/numerics.h"

#include <string>
#include <utility>

namespace kgb {
namespace {

// Width of a signed integer dtype, for "the wider wins".
int signed_integer_bits(DType t) {
  switch (t) {
    case DType::I8: return 8;
    case DType::I16: return 16;
    case DType::I32: return 32;
    case DType::I64: return 64;
    default: return 0;
  }
}

// Promotion of two different integral dtypes (bool counts as the narrowest):
// the wider signed type wins; u8 with a signed type needs a signed type that
// holds every u8, so u8 + i8 -> i16.
DType promote_integral(DType a, DType b) {
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (a == DType::U8) std::swap(a, b);
  if (b == DType::U8) return signed_integer_bits(a) > 8 ? a : DType::I16;
  return signed_integer_bits(a) >= signed_integer_bits(b) ? a : b;
}

// Promotion of two real floats: the wider wins; f16 and bf16 meet in f32,
// the narrowest type that holds both.
DType promote_floats(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::F64 || b == DType::F64) return DType::F64;
  return DType::F32;  // f32 with anything narrower, or f16 with bf16
}

Error promotion_error(const std::string& what) { return make_error("dtype.promotion", "result_type: " + what); }

// One accumulator of at::native::ResultTypeState (nullopt: undefined), or
// the result of combining two: that may be complex32 (torch.chalf), which
// KGB has no dtype for but which a later step can still turn into c64/c128.
struct Slot {
  std::optional<DType> dtype;
  bool complex32 = false;
  bool defined() const { return dtype || complex32; }
  DTypeCategory category() const { return complex32 ? DTypeCategory::Complex : dtype_category(*dtype); }
};

Result<Slot> promote_skip_undefined(const Slot& a, DType b) {
  if (!a.defined()) return Slot{b};
  if (auto p = promote_types(*a.dtype, b)) return Slot{*p};
  return promotion_error("PyTorch does not promote " + std::string(dtype_name(*a.dtype)) + " with " +
                         std::string(dtype_name(b)) + " (float8 dtypes promote only with themselves)");
}

// at::native's combine_categories(higher, lower).
Result<Slot> combine_categories(const Slot& higher, const Slot& lower) {
  if (!higher.defined()) return lower;
  if (!lower.defined()) return higher;
  const DTypeCategory h = higher.category(), l = lower.category();
  if (h == DTypeCategory::Complex) return higher;
  if (l == DTypeCategory::Complex) {
    if (h != DTypeCategory::Float) return lower;  // bool or integers above: the complex wins
    // Floats above keep their precision: c10::toComplexType.
    if (*higher.dtype == DType::F16) return Slot{std::nullopt, true};
    if (auto c = complex_of(*higher.dtype)) return Slot{*c};
    return promotion_error("PyTorch has no complex type for " + std::string(dtype_name(*higher.dtype)));
  }
  if (h == DTypeCategory::Float) return higher;
  if (h == DTypeCategory::Bool || l == DTypeCategory::Float) return promote_skip_undefined(higher, *lower.dtype);
  return higher;  // integers over integers or bool
}

// How a scalar operand counts: its category's default dtype.
DType scalar_dtype(DType t) {
  switch (dtype_category(t)) {
    case DTypeCategory::Bool: return DType::Bool;
    case DTypeCategory::Integer: return DType::I64;
    case DTypeCategory::Float: return DType::F32;    // torch.get_default_dtype()
    case DTypeCategory::Complex: return DType::C64;  // its complex counterpart
  }
  return t;
}

}  // namespace

DTypeCategory dtype_category(DType t) {
  if (t == DType::Bool) return DTypeCategory::Bool;
  if (is_complex(t)) return DTypeCategory::Complex;
  if (is_floating(t)) return DTypeCategory::Float;
  return DTypeCategory::Integer;
}

std::optional<DType> promote_types(DType a, DType b) {
  if (a == b) return a;
  if (is_fp8(a) || is_fp8(b)) return std::nullopt;
  const DTypeCategory ca = dtype_category(a), cb = dtype_category(b);
  if (ca == DTypeCategory::Complex || cb == DTypeCategory::Complex) {
    // The complex type whose parts hold both real parts.
    const bool wide = real_of(a) == DType::F64 || real_of(b) == DType::F64;
    return wide ? DType::C128 : DType::C64;
  }
  if (ca == DTypeCategory::Float && cb == DTypeCategory::Float) return promote_floats(a, b);
  if (ca == DTypeCategory::Float) return a;  // a float beats bool and integers
  if (cb == DTypeCategory::Float) return b;
  return promote_integral(a, b);
}

DType float_of(DType a) { return is_integral(a) ? DType::F32 : a; }

DType widen(DType a) { return is_integral(a) ? DType::I64 : a; }

DType real_of(DType a) {
  if (a == DType::C64) return DType::F32;
  if (a == DType::C128) return DType::F64;
  return a;
}

std::optional<DType> complex_of(DType a) {
  switch (a) {
    case DType::BF16:  // bf16 has f32's range, so torch maps it to complex float
    case DType::F32:
    case DType::C64: return DType::C64;
    case DType::F64:
    case DType::C128: return DType::C128;
    default: return std::nullopt;  // f16 -> complex32 (no KGB dtype); bool, integers, float8: refused
  }
}

Result<DType> result_type(std::span<const Operand> operands) {
  Slot dimensioned, zero_dim, scalars;
  for (const Operand& o : operands) {
    Slot& slot = o.kind == OperandKind::Tensor ? dimensioned : o.kind == OperandKind::ZeroDimTensor ? zero_dim : scalars;
    auto next = promote_skip_undefined(slot, o.kind == OperandKind::Scalar ? scalar_dtype(o.dtype) : o.dtype);
    if (!next) return next.error();
    slot = *next;
  }
  auto lower = combine_categories(zero_dim, scalars);
  if (!lower) return lower.error();
  auto combined = combine_categories(dimensioned, *lower);
  if (!combined) return combined.error();
  if (combined->complex32)
    return promotion_error("f16 with a complex operand of lower priority gives complex32 in PyTorch, which KGB has "
                           "no dtype for");
  if (!combined->dtype) return promotion_error("no operands");
  return *combined->dtype;
}

}  // namespace kgb
