// Reference for aten/add: out = self + alpha * other with PyTorch broadcasting.
// Floating types are computed in double from the logical values and rounded
// once into the output dtype; integer types are computed exactly in int64.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void add_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& other = args.tensor("other");
  kgb::HostTensor& out = args.tensor("out");
  const double alpha = args.scalar("alpha");

  if (kgb::is_floating(out.dtype())) {
    kgb::pointwise::map_doubles({&self, &other}, out, [&](const std::vector<double>& v) { return v[0] + alpha * v[1]; });
    return;
  }
  if (alpha != std::floor(alpha)) throw std::runtime_error("aten/add: non-integral alpha for an integer dtype");
  const int64_t ialpha = static_cast<int64_t>(alpha);
  kgb::pointwise::map_ints({&self, &other}, out, [&](const std::vector<int64_t>& v) { return v[0] + ialpha * v[1]; });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/add", add_reference);
