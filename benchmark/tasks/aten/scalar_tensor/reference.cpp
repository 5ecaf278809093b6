// Reference for aten/scalar_tensor: the rank-0 out set to s converted as
// c10::Scalar::to<T> does (fill_reference.h). Its dtype must be the dtype
// argument, else f32 (the default dtype, whatever kind s is).
#include "../fill_reference.h"
#include "kgb/reference.h"

namespace {

void scalar_tensor_reference(kgb::RefArgs& args) {
  kgb::HostTensor& out = args.tensor("out");
  kgb::fill::expect_dtype(out, args.has("dtype") ? kgb::fill::dtype_named(args.enum_name("dtype")) : kgb::DType::F32,
                          "aten/scalar_tensor");
  kgb::fill::fill(out, args.aten_scalar("s"));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/scalar_tensor", scalar_tensor_reference);
