// Reference for aten/item: the one element of self as the Scalar PyTorch
// returns (scalar_result_reference.h, shared with aten/_local_scalar_dense).
#include "../scalar_result_reference.h"

KGB_REGISTER_GENERATOR("aten/item/self", kgb::scalar_result::generate_self);
KGB_REGISTER_REFERENCE("aten/item", kgb::scalar_result::one_element_scalar);
