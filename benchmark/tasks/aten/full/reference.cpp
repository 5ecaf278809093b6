// Reference for aten/full: every element of out set to fill_value converted
// as c10::Scalar::to<T> does (fill_reference.h). The case's out dtype must be
// the one ATen picks: the dtype argument, else inferred from fill_value
// (bool -> bool, integer -> i64, floating -> f32, the default dtype,
// complex -> c64).
#include "../fill_reference.h"
#include "kgb/reference.h"

namespace {

kgb::DType inferred(const kgb_scalar& v) {
  switch (v.dtype) {
    case KGB_BOOL: return kgb::DType::Bool;
    case KGB_I64: return kgb::DType::I64;
    case KGB_C128: return kgb::DType::C64;
    default: return kgb::DType::F32;
  }
}

void full_reference(kgb::RefArgs& args) {
  kgb::HostTensor& out = args.tensor("out");
  const kgb_scalar value = args.aten_scalar("fill_value");
  kgb::fill::expect_dtype(out, args.has("dtype") ? kgb::fill::dtype_named(args.enum_name("dtype")) : inferred(value),
                          "aten/full");
  kgb::fill::fill(out, value);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/full", full_reference);
