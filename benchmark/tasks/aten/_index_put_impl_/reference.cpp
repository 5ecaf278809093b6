// Reference for aten/_index_put_impl_: index_put_'s advanced-index
// assignment (../index_put_reference.h); `unsafe` only skips ATen's index
// checks, which valid indices never fail.
#include "../index_put_reference.h"

KGB_REGISTER_REFERENCE("aten/_index_put_impl_", kgb::index_put::reference);
