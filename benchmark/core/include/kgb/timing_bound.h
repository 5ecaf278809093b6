// The outside bound on a timed block (issue class "timing that trusts the
// candidate's process"). The candidate's runner reports per-call figures it
// measured in its own process, with code and memory the candidate can reach;
// the parent measures the whole block with its own clock. Every second the
// parent saw must be explained by the reported calls plus the harness's own
// overhead, which the trusted baseline runner measures on the same job in
// the same interleaved pairs. What is left unexplained beyond a slack is a
// forged figure: forging can hide at most the slack.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kgb {

// One timed block as the parent knows it.
struct BlockFigures {
  double parent_wall_s = 0;       // the parent's clock: job sent to reply read
  std::vector<double> times_us;   // one reported series (event or host times)
  double loop_s = 0;              // runner-reported: the timed loop's wall time (trusted for the baseline only)
  double warmup_s = 0;            // runner-reported: the warm-up calls' wall time (trusted for the baseline only)
};

// The slack: a fraction of the harness overhead the baseline measured (its
// run-to-run variation) plus a constant (process wake-up, scheduling).
struct TimingSlack {
  double overhead_fraction = 0.5;
  double constant_s = 0.004;
};

struct BlockBound {
  double wall_s = 0;         // what the parent measured for the candidate block
  double reported_s = 0;     // the candidate's reported calls
  double explained_s = 0;    // reported calls + the baseline-measured overhead
  double allowed_s = 0;      // the slack either way
  double unaccounted_s() const { return wall_s - explained_s; }
  // Time the reported calls do not account for (forged figures), or
  // reported time the wall does not contain (invented iterations).
  bool exceeded() const { return unaccounted_s() > allowed_s || -unaccounted_s() > allowed_s; }
  std::string describe() const;
};

// Bounds a candidate block by its paired baseline block (same job, same
// warm-up count).
BlockBound bound_block(const BlockFigures& candidate, const BlockFigures& baseline, const TimingSlack& slack = {});

// The verdict's speedup is a median over the pairs of blocks, so the bound
// that matters is the median block's: the block with the median unaccounted
// time, held to the median slack. One block slowed by the host (a page-fault
// storm, another process) does not reject an honest kernel; forging that
// moves the median block shows there. Empty input gives an empty bound.
BlockBound median_block(std::vector<BlockBound> blocks);

}  // namespace kgb
