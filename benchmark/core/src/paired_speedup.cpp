#include "kgb/paired_speedup.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace kgb {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

PairedSpeedup paired_speedup(const std::vector<double>& baseline_medians, const std::vector<double>& candidate_medians,
                             uint64_t seed, int resamples) {
  PairedSpeedup r;
  std::vector<double> log_ratios;  // logs: the median is the same, the bootstrap symmetric in up and down
  const size_t n = std::min(baseline_medians.size(), candidate_medians.size());
  for (size_t k = 0; k < n; ++k)
    if (baseline_medians[k] > 0 && candidate_medians[k] > 0)
      log_ratios.push_back(std::log(baseline_medians[k] / candidate_medians[k]));
  r.pairs = static_cast<int>(log_ratios.size());
  if (log_ratios.empty()) return r;
  r.estimate = std::exp(median_of(log_ratios));
  if (log_ratios.size() < 2 || resamples < 1) return r;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, log_ratios.size() - 1);
  std::vector<double> medians(static_cast<size_t>(resamples)), sample(log_ratios.size());
  for (double& m : medians) {
    for (double& x : sample) x = log_ratios[pick(rng)];
    m = median_of(sample);
  }
  std::sort(medians.begin(), medians.end());
  auto at = [&](double q) {
    const size_t i = static_cast<size_t>(std::clamp(q * static_cast<double>(medians.size() - 1), 0.0,
                                                    static_cast<double>(medians.size() - 1)));
    return std::exp(medians[i]);
  };
  r.low = at(0.025);
  r.high = at(0.975);
  return r;
}

}  // namespace kgb
