// Reference for aten/zeros: every element of out set to 0. The case's out
// dtype must be the one ATen picks: the dtype argument, else f32.
#include "../fill_reference.h"
#include "kgb/reference.h"

namespace {

void zeros_reference(kgb::RefArgs& args) {
  kgb::HostTensor& out = args.tensor("out");
  kgb::fill::expect_dtype(out, args.has("dtype") ? kgb::fill::dtype_named(args.enum_name("dtype")) : kgb::DType::F32,
                          "aten/zeros");
  kgb::fill::fill(out, kgb::fill::int_value(0));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/zeros", zeros_reference);
