// The outside bound on a timed block (kgb/timing_bound.h) with scripted
// figures: honest blocks of either runner fit, forged call times and invented
// reported time do not, and the slack is what forging can gain at most.
#include <doctest/doctest.h>

#include <vector>

#include "kgb/timing_bound.h"

namespace {

// A block as an honest runner produces it: `fixed` outside the loop, warm-up
// calls as long as timed ones, `overhead` per iteration around each call.
kgb::BlockFigures honest_block(double call_us, size_t n, double overhead_s, double fixed_s, int warmup = 2) {
  kgb::BlockFigures b;
  b.times_us.assign(n, call_us);
  b.warmup_s = warmup * call_us / 1e6;
  b.loop_s = static_cast<double>(n) * (call_us / 1e6 + overhead_s);
  b.parent_wall_s = fixed_s + b.warmup_s + b.loop_s;
  return b;
}

}  // namespace

TEST_CASE("honest candidate blocks fit, faster or slower than the baseline") {
  const kgb::BlockFigures baseline = honest_block(1000, 50, 0.0002, 0.010);
  for (double call_us : {100.0, 1000.0, 5000.0})
    for (size_t n : {size_t{20}, size_t{50}, size_t{200}}) {
      const kgb::BlockBound b = kgb::bound_block(honest_block(call_us, n, 0.0002, 0.010), baseline);
      INFO(call_us << " us x " << n << ": " << b.describe());
      CHECK_FALSE(b.exceeded());
      CHECK(b.unaccounted_s() == doctest::Approx(0).epsilon(0.01).scale(1));
    }
}

TEST_CASE("harness noise within the slack passes: overheads 30% off the baseline's") {
  const kgb::BlockFigures baseline = honest_block(1000, 50, 0.0002, 0.010);
  CHECK_FALSE(kgb::bound_block(honest_block(1000, 50, 0.00026, 0.013), baseline).exceeded());
  CHECK_FALSE(kgb::bound_block(honest_block(1000, 50, 0.00014, 0.007), baseline).exceeded());
}

TEST_CASE("forged call times leave wall time unaccounted for") {
  const kgb::BlockFigures baseline = honest_block(1000, 50, 0.0002, 0.010);
  kgb::BlockFigures forged = honest_block(1000, 50, 0.0002, 0.010);
  for (double& t : forged.times_us) t /= 4;  // the work took 1000 us a call
  const kgb::BlockBound b = kgb::bound_block(forged, baseline);
  INFO(b.describe());
  CHECK(b.exceeded());
  CHECK(b.unaccounted_s() > 0.03);
  CHECK(b.describe().find("unaccounted") != std::string::npos);
}

TEST_CASE("a forged clock that also shrinks the candidate's own loop and warm-up figures changes nothing") {
  // Only the baseline's loop and warm-up figures enter the bound.
  const kgb::BlockFigures baseline = honest_block(1000, 50, 0.0002, 0.010);
  kgb::BlockFigures forged = honest_block(1000, 50, 0.0002, 0.010);
  for (double& t : forged.times_us) t /= 4;
  forged.loop_s /= 4;
  forged.warmup_s /= 4;
  CHECK(kgb::bound_block(forged, baseline).exceeded());
}

TEST_CASE("reported time the wall does not contain is rejected too (invented iterations)") {
  const kgb::BlockFigures baseline = honest_block(1000, 50, 0.0002, 0.010);
  kgb::BlockFigures invented = honest_block(1000, 50, 0.0002, 0.010);
  invented.times_us.insert(invented.times_us.end(), 150, 250.0);  // 150 calls that never ran
  const kgb::BlockBound b = kgb::bound_block(invented, baseline);
  INFO(b.describe());
  CHECK(b.exceeded());
  CHECK(b.unaccounted_s() < 0);
  CHECK(b.describe().find("beyond the wall time") != std::string::npos);
}

TEST_CASE("forging gains at most the slack") {
  const kgb::BlockFigures baseline = honest_block(1000, 50, 0.0002, 0.010);
  kgb::BlockFigures forged = honest_block(1000, 50, 0.0002, 0.010);
  const double allowed = kgb::bound_block(forged, baseline).allowed_s;
  // Shave just under the slack off the reported calls: not seen; just over: seen.
  const double total_s = 0.050;
  for (double& t : forged.times_us) t *= 1 - 0.9 * allowed / total_s;
  CHECK_FALSE(kgb::bound_block(forged, baseline).exceeded());
  for (double& t : forged.times_us) t *= 1 - 0.3 * allowed / total_s;
  CHECK(kgb::bound_block(forged, baseline).exceeded());
}

TEST_CASE("the median block decides: one block slowed by the host passes, forging most blocks does not") {
  const kgb::BlockFigures baseline = honest_block(1000, 50, 0.0002, 0.010);
  std::vector<kgb::BlockBound> blocks;
  for (int k = 0; k < 5; ++k) blocks.push_back(kgb::bound_block(honest_block(1000, 50, 0.0002, 0.010), baseline));
  kgb::BlockFigures stalled = honest_block(1000, 50, 0.0002, 0.010);
  stalled.parent_wall_s += 1.0;  // a page-fault storm in one block
  blocks.push_back(kgb::bound_block(stalled, baseline));
  CHECK(blocks.back().exceeded());
  CHECK_FALSE(kgb::median_block(blocks).exceeded());

  kgb::BlockFigures forged = honest_block(1000, 50, 0.0002, 0.010);
  for (double& t : forged.times_us) t /= 4;
  for (int k = 0; k < 4; ++k) blocks[static_cast<size_t>(k)] = kgb::bound_block(forged, baseline);
  CHECK(kgb::median_block(blocks).exceeded());
  CHECK_FALSE(kgb::median_block({}).exceeded());
}
