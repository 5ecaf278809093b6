// Reference for aten/neg: out = -self. Floats are negated in double (exact,
// signed zeros and infinities flip) and stored once; integers exactly in int64.
#include <cstdint>
#include <vector>

#include "../pointwise_inputs.h"
#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void neg_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (kgb::is_floating(out.dtype())) {
    kgb::pointwise::map_doubles({&self}, out, [](const std::vector<double>& v) { return -v[0]; });
    return;
  }
  kgb::pointwise::map_ints({&self}, out, [](const std::vector<int64_t>& v) { return -v[0]; });
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/neg/self", kgb::pointwise::normal_with_specials);
KGB_REGISTER_REFERENCE("aten/neg", neg_reference);
