// The random tasks' two-sample test at the output dtype's resolution
// (benchmark/tasks/aten/random_check.h): two correct bf16 samplers that round
// in a different order agree within one step, a wrong range does not.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../../benchmark/tasks/aten/random_check.h"
#include "kgb/tensor.h"

namespace {

double uniform53(uint64_t h) { return static_cast<double>((h >> 11) + 1) * 0x1.0p-53; }
double uniform24(uint64_t h) { return static_cast<double>((h >> 40) + 1) * 0x1.0p-24; }

double bf16(double v) { return kgb::round_to(kgb::DType::BF16, v); }

// The gap to the next bf16 value above a positive v (8 significand bits).
double next_bf16(double v) {
  int exponent = 0;
  std::frexp(v, &exponent);
  return v + std::ldexp(1.0, exponent - 8);
}

}  // namespace

TEST_CASE("bf16 slopes drawn in ATen's CUDA order pass at one step of resolution; a narrowed range fails") {
  using kgb::random_check::ks_distance;
  using kgb::random_check::ks_distance_within_step;
  using kgb::random_check::splitmix64;
  const double lower = 0.125, upper = 1.0 / 3, range = upper - lower;
  const size_t m = 12'000'000;  // the systematic difference (about 0.002) is above the bound from about 5e6 draws
  std::vector<double> reference(m), cuda_order(m), narrowed(m);
  for (size_t i = 0; i < m; ++i) {
    // The reference: u in double, scaled, rounded once.
    reference[i] = bf16(lower + uniform53(splitmix64(2 * i)) * range);
    // ATen's CUDA kernel: the float uniform rounded to bf16 first, then scaled and rounded again.
    cuda_order[i] = bf16(bf16(uniform24(splitmix64(2 * i + 1))) * range + lower);
    narrowed[i] = bf16(lower + uniform53(splitmix64(~i)) * range * 0.97);
  }
  for (auto* v : {&reference, &cuda_order, &narrowed}) std::sort(v->begin(), v->end());
  const double critical = 3.5 * std::sqrt(2.0 / static_cast<double>(m));
  // The plain statistic rejects a correct kernel at this size ...
  CHECK(ks_distance(cuda_order, reference) > critical);
  // ... the one-step comparison does not, and still rejects a wrong range.
  CHECK(ks_distance_within_step(cuda_order, reference, next_bf16) <= critical);
  CHECK(ks_distance_within_step(narrowed, reference, next_bf16) > 5 * critical);
  // A sample against itself is at distance 0.
  CHECK(ks_distance_within_step(reference, reference, next_bf16) == 0);
}
