// The reference of the harness's own test task, registered in the test binary.
#include <cmath>

#include "kgb/reference.h"

namespace {

void scale_reference(kgb::RefArgs& a) {
  const kgb::HostTensor& x = a.tensor("x");
  kgb::HostTensor& out = a.tensor("out");
  double alpha = a.scalar("alpha");
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (kgb::is_complex(x.dtype())) out.set_complex(i, alpha * x.get_complex(i));
    else if (x.dtype() == kgb::DType::Bool) out.set_int(i, x.get_int(i) != 0 && alpha != 0);
    else if (kgb::is_integral(x.dtype())) out.set_int(i, x.get_int(i) * static_cast<int64_t>(alpha));
    else out.set(i, alpha * x.get(i));
  }
}

KGB_REGISTER_REFERENCE("test/scale", scale_reference);

}  // namespace
