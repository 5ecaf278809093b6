// PyTorch's dtype rules, as the spec's dtype expressions (promote, result_type,
// float, widen, real, complex) and the references need them. They follow
// torch 2.x (the generation the published results used); the part libtorch
// 1.13 can express is cross-checked against it in tests/tasks.
#pragma once

#include <optional>
#include <span>

#include "kgb/dtype.h"
#include "kgb/result.h"

namespace kgb {

// bool < integer < float < complex: the order torch.result_type ranks operands by.
enum class DTypeCategory { Bool = 0, Integer = 1, Float = 2, Complex = 3 };
DTypeCategory dtype_category(DType t);

// torch.promote_types(a, b). nullopt where PyTorch refuses: a float8 dtype
// with any dtype other than itself (f8e4m3fn with f8e5m2 included), which
// torch 2.x rejects with "Promotion for Float8 Types is not supported".
std::optional<DType> promote_types(DType a, DType b);

// f32 for bool and integers, else `a` (unary float ops such as torch.sqrt).
DType float_of(DType a);
// i64 for bool and integers, else `a` (torch.sum and torch.cumsum with dtype=None).
DType widen(DType a);
// The real dtype of a complex one (c64 -> f32, c128 -> f64), else `a` (torch.real, torch.abs).
DType real_of(DType a);
// c10::toComplexType: f32 and bf16 -> c64, f64 -> c128, complex dtypes stay.
// nullopt for f16 (PyTorch gives complex32, which KGB has no dtype for) and for
// bool, integers and float8, which PyTorch refuses.
std::optional<DType> complex_of(DType a);

// An operand of torch.result_type.
enum class OperandKind {
  Tensor,         // a tensor with at least one dimension
  ZeroDimTensor,  // a 0-dim tensor (torch.tensor(2.0))
  Scalar          // a Python/ATen scalar: only its category counts
};
struct Operand {
  DType dtype;
  OperandKind kind = OperandKind::Tensor;
};

// torch.result_type over the operands (at::native::result_type's rule): the
// operands of each kind are promoted among themselves; float scalars count as
// the default dtype f32 and complex scalars as c64, integer scalars as i64.
// Then dimensioned tensors win over zero-dim tensors, which win over scalars,
// unless the lower kind is of a higher category: a float below bool or
// integers is promoted with them (i32 tensor + 2.5 -> f32), a complex below
// them wins as it is (i32 tensor + 1j -> c64), and a complex below floats
// makes the complex type of the higher float (f64 tensor + 1j -> c128). Errors: no operands, a float8 dtype meeting another dtype in
// one promotion, and a result of complex32 (an f16 tensor with a complex
// operand of lower priority), which KGB has no dtype for.
Result<DType> result_type(std::span<const Operand> operands);

}  // namespace kgb
