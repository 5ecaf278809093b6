#include "kgb/timing_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace kgb {
namespace {

double sum_seconds(const std::vector<double>& us) { return std::accumulate(us.begin(), us.end(), 0.0) / 1e6; }

double median(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(xs.size() / 2), xs.end());
  return xs[xs.size() / 2];
}

}  // namespace

std::string BlockBound::describe() const {
  char text[320];
  std::snprintf(text, sizeof text,
                "the parent measured %.4f s for the block; the reported calls (%.4f s) and the harness overhead the baseline "
                "measured explain %.4f s; %.4f s %s, beyond the slack of %.4f s",
                wall_s, reported_s, explained_s, std::abs(unaccounted_s()),
                unaccounted_s() > 0 ? "is unaccounted for" : "was reported beyond the wall time", allowed_s);
  return text;
}

BlockBound bound_block(const BlockFigures& candidate, const BlockFigures& baseline, const TimingSlack& slack) {
  BlockBound b;
  b.wall_s = candidate.parent_wall_s;
  b.reported_s = sum_seconds(candidate.times_us);
  // The baseline's figures are its own, in its own (trusted) process: the
  // loop's overhead per iteration (input rotation, restores, cache flush,
  // synchronisation) and the block's fixed part (arena, preparation,
  // collection, the pipe), which is everything outside the loop and the
  // warm-up calls.
  const double baseline_reported = sum_seconds(baseline.times_us);
  const double n_baseline = static_cast<double>(std::max<size_t>(1, baseline.times_us.size()));
  const double n_candidate = static_cast<double>(candidate.times_us.size());
  const double per_iteration = std::max(0.0, (baseline.loop_s - baseline_reported) / n_baseline);
  const double fixed = std::max(0.0, baseline.parent_wall_s - baseline.loop_s - baseline.warmup_s);
  // Warm-up calls take about as long as timed ones: the baseline's warm-up
  // scaled by the two runners' reported speed ratio (forged figures shrink
  // this share too).
  const double baseline_median = median(baseline.times_us);
  const double speed = baseline_median > 0 ? median(candidate.times_us) / baseline_median : 1;
  const double warmup = baseline.warmup_s * speed;
  b.explained_s = fixed + warmup + b.reported_s + n_candidate * per_iteration;
  // Slack from figures the candidate cannot inflate at will: the baseline's
  // overhead, with the candidate's iteration count capped at the larger of
  // the two (the parent caps it at the job's maximum).
  const double overhead = fixed + baseline.warmup_s + std::max(n_candidate, n_baseline) * per_iteration;
  b.allowed_s = slack.overhead_fraction * overhead + slack.constant_s;
  return b;
}

BlockBound median_block(std::vector<BlockBound> blocks) {
  if (blocks.empty()) return {};
  std::vector<double> slacks;
  for (const auto& b : blocks) slacks.push_back(b.allowed_s);
  const auto middle = blocks.begin() + static_cast<std::ptrdiff_t>(blocks.size() / 2);
  std::nth_element(blocks.begin(), middle, blocks.end(),
                   [](const BlockBound& a, const BlockBound& b) { return a.unaccounted_s() < b.unaccounted_s(); });
  BlockBound m = *middle;
  m.allowed_s = median(slacks);
  return m;
}

}  // namespace kgb
