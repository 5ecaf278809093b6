// Reference for aten/softmax: the textbook formula in double on the logical
// values, rounded once into the output dtype (softmax_reference.h).
#include "../softmax_reference.h"
#include "kgb/reference.h"

namespace {

void softmax_reference(kgb::RefArgs& args) {
  kgb::softmax::softmax_into("aten/softmax", args.tensor("self"), args.int_scalar("dim"), args.tensor("out"));
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/softmax", softmax_reference);
