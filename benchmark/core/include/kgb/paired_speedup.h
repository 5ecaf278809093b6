// The speedup of a candidate over its baseline from interleaved, paired
// timing blocks.
//
// A shared host drifts: other processes, frequency, cache and memory
// pressure change over seconds, and timing the candidate first and the
// baseline afterwards puts that drift straight into their ratio. The harness
// therefore times short blocks of the two runners in alternation, in the
// order C B B C C B ... (each pair reverses the previous pair's order, so a
// drift that is linear over two pairs cancels), and estimates the speedup
// from the pairs: each pair gives one ratio, baseline block median over
// candidate block median, both measured within a fraction of a second of
// each other. The estimate is the median of the pair ratios (robust to a
// pair hit by a burst of host load); its interval is a percentile bootstrap
// of that median over the pairs.
#pragma once

#include <cstdint>
#include <vector>

namespace kgb {

struct PairedSpeedup {
  double estimate = 0;      // median over pairs of baseline / candidate block medians
  double low = 0, high = 0; // 95% percentile-bootstrap interval of the estimate (0 with fewer than 2 pairs)
  int pairs = 0;
  // The interval's width relative to the estimate, (high - low) / estimate;
  // 0 when there is no interval.
  double relative_width() const { return estimate > 0 && high > low ? (high - low) / estimate : 0; }
};

// baseline_medians[k] and candidate_medians[k] are the medians of pair k's
// two blocks (microseconds, positive). `seed` makes the bootstrap
// reproducible. Pairs with a non-positive median are left out.
PairedSpeedup paired_speedup(const std::vector<double>& baseline_medians, const std::vector<double>& candidate_medians,
                             uint64_t seed, int resamples = 2000);

// Whether pair k times the candidate first (C B, B C, C B, ...: pair k
// reverses pair k-1).
inline bool candidate_first_in_pair(int k) { return k % 2 == 0; }

}  // namespace kgb
