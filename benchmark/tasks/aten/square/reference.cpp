// Reference for aten/square: out = self * self (pow(self, 2)); a bool self
// gives an i64 out. Floats square in double and round once into out's dtype
// (f16 overflows to +Inf beyond 65504, as the float-then-round kernel does);
// integers square exactly in int64.
#include <cstdint>
#include <vector>

#include "../pointwise_inputs.h"
#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void square_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (kgb::is_floating(out.dtype())) {
    kgb::pointwise::map_doubles({&self}, out, [](const std::vector<double>& v) { return v[0] * v[0]; });
    return;
  }
  kgb::pointwise::map_ints({&self}, out, [](const std::vector<int64_t>& v) { return v[0] * v[0]; });
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/square/self", kgb::pointwise::normal_with_specials);
KGB_REGISTER_REFERENCE("aten/square", square_reference);
