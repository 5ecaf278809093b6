// Reference for aten/bernoulli: out[i] = 1 with probability self[i], else 0.
// The task is checked statistically, so the reference only has to be a
// correct sampler: a splitmix64 stream keyed by (seed, logical index) gives a
// 53-bit uniform u in [0, 1), and the draw is u < p.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void bernoulli_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (self.sizes() != out.sizes()) throw std::runtime_error("aten/bernoulli: self and out differ in shape");
  const uint64_t key = splitmix64(static_cast<uint64_t>(args.int_scalar("seed")));

  const std::vector<double> p = kgb::to_doubles(self);
  std::vector<double> r(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] >= 0.0 && p[i] <= 1.0)) throw std::runtime_error("aten/bernoulli: probability outside [0, 1]");
    const double u = static_cast<double>(splitmix64(key ^ splitmix64(i)) >> 11) * 0x1.0p-53;
    r[i] = u < p[i] ? 1.0 : 0.0;
  }
  kgb::from_doubles(out, r);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/bernoulli", bernoulli_reference);
