// Reference for aten/zeros_like: every element of out set to 0. self's values
// are never read; its dtype is out's unless the dtype argument names another,
// and out's layout is the case's (memory_format=preserve: a dense self's
// strides, else contiguous). A case whose out dtype disagrees is a task bug.
#include "../fill_reference.h"
#include "kgb/reference.h"

namespace {

void zeros_like_reference(kgb::RefArgs& args) {
  kgb::HostTensor& out = args.tensor("out");
  kgb::fill::expect_dtype(out, args.has("dtype") ? kgb::fill::dtype_named(args.enum_name("dtype")) : args.tensor("self").dtype(),
                          "aten/zeros_like");
  kgb::fill::fill(out, kgb::fill::int_value(0));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/zeros_like", zeros_like_reference);
