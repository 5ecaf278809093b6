// Reference for aten/resolve_neg: self itself (an alias, set_view) unless
// its neg bit is set; then the logical values with no flags, as ATen's
// empty_like(self).copy_(self) gives them: -(stored), conjugated too when the
// conj bit is also set (copy_ resolves both bits). Floats negate exactly in
// double; i64 wraps as two's complement.
#include <complex>
#include <cstdint>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void resolve_neg_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  if (!(self.flags() & KGB_TENSOR_NEG)) {
    args.set_view("out", self.sizes(), self.strides(), self.offset());
    return;
  }
  kgb::HostTensor& out = args.tensor("out");
  const bool conj = (self.flags() & KGB_TENSOR_CONJ) != 0;
  for (int64_t i = 0; i < self.numel(); ++i) {
    if (kgb::is_complex(self.dtype())) {
      const std::complex<double> v = self.get_complex(i);
      out.set_complex(i, -(conj ? std::conj(v) : v));
    } else if (self.dtype() == kgb::DType::I64) {
      out.set_int(i, static_cast<int64_t>(0 - static_cast<uint64_t>(self.get_int(i))));
    } else {
      out.set(i, -self.get(i));
    }
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/resolve_neg", resolve_neg_reference);
