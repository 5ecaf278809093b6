// Reference for aten/resolve_conj: self itself (an alias, set_view) unless
// its conj bit is set; then the logical values with no flags, as ATen's
// empty_like(self).copy_(self) gives them: conj(stored), and negated too when
// the neg bit is also set (copy_ resolves both bits).
#include <complex>
#include <stdexcept>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void resolve_conj_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  if (!(self.flags() & KGB_TENSOR_CONJ)) {
    args.set_view("out", self.sizes(), self.strides(), self.offset());
    return;
  }
  if (!kgb::is_complex(self.dtype())) throw std::runtime_error("aten/resolve_conj: a conj bit on a real tensor");
  kgb::HostTensor& out = args.tensor("out");
  const bool negate = (self.flags() & KGB_TENSOR_NEG) != 0;
  for (int64_t i = 0; i < self.numel(); ++i) {
    const std::complex<double> v = std::conj(self.get_complex(i));
    out.set_complex(i, negate ? -v : v);
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/resolve_conj", resolve_conj_reference);
