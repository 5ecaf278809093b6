// Reference for aten/new_ones: every element of out set to 1 (true, 1, 1.0,
// (1, 0)). self's values are never read; its dtype is out's unless the dtype
// argument names another (a case that disagrees is a task bug).
#include "../fill_reference.h"
#include "kgb/reference.h"

namespace {

void new_ones_reference(kgb::RefArgs& args) {
  kgb::HostTensor& out = args.tensor("out");
  kgb::fill::expect_dtype(out, args.has("dtype") ? kgb::fill::dtype_named(args.enum_name("dtype")) : args.tensor("self").dtype(),
                          "aten/new_ones");
  kgb::fill::fill(out, kgb::fill::int_value(1));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/new_ones", new_ones_reference);
