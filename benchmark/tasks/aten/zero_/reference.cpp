// Reference for aten/zero_: every element of the view self set to 0 (false,
// +0.0, (0, 0)); storage outside the view keeps its bytes.
#include "../fill_reference.h"
#include "kgb/reference.h"

namespace {

void zero_reference(kgb::RefArgs& args) { kgb::fill::fill(args.tensor("self"), kgb::fill::int_value(0)); }

}  // namespace

KGB_REGISTER_REFERENCE("aten/zero_", zero_reference);
