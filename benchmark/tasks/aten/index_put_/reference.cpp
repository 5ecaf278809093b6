// Reference for aten/index_put_: ATen's advanced-index assignment, shared
// with aten/_index_put_impl_ (../index_put_reference.h).
#include "../index_put_reference.h"

KGB_REGISTER_REFERENCE("aten/index_put_", kgb::index_put::reference);
