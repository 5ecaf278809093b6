// Reference for aten/bitwise_not: out = ~self on integers (two's complement,
// u8 as 255 - x), the logical not on bool.
#include <cstdint>
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/dtype.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void bitwise_not_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (out.dtype() == kgb::DType::Bool) {
    kgb::pointwise::map_ints({&self}, out, [](const std::vector<int64_t>& v) { return int64_t{v[0] == 0}; });
    return;
  }
  kgb::pointwise::map_ints({&self}, out, [](const std::vector<int64_t>& v) { return ~v[0]; });
}

// Integers: every bit pattern of the dtype equally likely (the sign bit and
// the extremes included); bool: 0 or 1.
void bitwise_not_input(kgb::GeneratorArgs& g) {
  kgb::HostTensor& t = g.tensor;
  const int64_t n = t.numel();
  const int bits = 8 * kgb::dtype_size(t.dtype());
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = g.rng();
    if (t.dtype() == kgb::DType::Bool) {
      t.set_int(i, static_cast<int64_t>(r >> 63));
    } else if (bits == 64) {
      t.set_int(i, static_cast<int64_t>(r));
    } else {
      const uint64_t u = r >> (64 - bits);  // an unsigned value of `bits` bits
      const bool is_signed = t.dtype() != kgb::DType::U8;
      const int64_t v = is_signed && (u >> (bits - 1)) ? static_cast<int64_t>(u) - (int64_t{1} << bits) : static_cast<int64_t>(u);
      t.set_int(i, v);
    }
  }
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/bitwise_not/self", bitwise_not_input);
KGB_REGISTER_REFERENCE("aten/bitwise_not", bitwise_not_reference);
