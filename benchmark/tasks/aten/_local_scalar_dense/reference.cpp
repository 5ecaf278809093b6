// Reference for aten/_local_scalar_dense: the one element of self as the
// Scalar PyTorch returns (scalar_result_reference.h, shared with aten/item,
// which dispatches to this op).
#include "../scalar_result_reference.h"

KGB_REGISTER_GENERATOR("aten/_local_scalar_dense/self", kgb::scalar_result::generate_self);
KGB_REGISTER_REFERENCE("aten/_local_scalar_dense", kgb::scalar_result::one_element_scalar);
