// Reference for aten/copy_: self = src broadcast to self's shape, converted
// as a C cast into self's dtype: floats round once (f64 into f16/bf16 via
// float, as ATen's copy kernels convert), floats into integers truncate,
// anything into bool is value != 0 (NaN included), integers stay exact.
#include <cmath>
#include <cstdint>
#include <vector>

#include "../pointwise_reference.h"
#include "../promoted_binary.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

using kgb::DType;

void copy_reference(kgb::RefArgs& args) {
  kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& src = args.tensor("src");
  const DType to = self.dtype(), from = src.dtype();
  if (kgb::is_floating(to)) {
    const bool via_float = from == DType::F64 && (to == DType::F16 || to == DType::BF16);
    kgb::pointwise::map_doubles({&src}, self, [via_float](const std::vector<double>& v) {
      return via_float ? static_cast<double>(static_cast<float>(v[0])) : v[0];
    });
  } else if (to == DType::Bool) {
    kgb::pointwise::map_doubles({&src}, self, [](const std::vector<double>& v) { return v[0] != 0 || std::isnan(v[0]) ? 1.0 : 0.0; });
  } else if (kgb::is_floating(from)) {
    kgb::pointwise::map_doubles({&src}, self, [](const std::vector<double>& v) { return std::trunc(v[0]); });
  } else {
    kgb::pointwise::map_ints({&src}, self, [](const std::vector<int64_t>& v) { return v[0]; });
  }
}

// Normal values (stddev 100; integers rounded), in range of every integer
// dtype; 5% NaN/+-inf on floating src only when self is floating or bool
// (a float-to-integer cast of NaN or infinity is undefined).
void src_values(kgb::GeneratorArgs& g) {
  const DType to = g.dtypes.at("T");
  const double share = kgb::is_floating(to) || to == DType::Bool ? 0.05 : 0.0;
  kgb::pointwise::fill_operand(
      g, [](kgb::SplitMix64& rng) { return 100.0 * kgb::standard_normal(rng); },
      [](kgb::SplitMix64& rng) { return std::llround(100.0 * kgb::standard_normal(rng)); }, share);
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/copy_/src", src_values);
KGB_REGISTER_REFERENCE("aten/copy_", copy_reference);
