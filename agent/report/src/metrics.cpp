#include "kgb/report/metrics.h"

#include <algorithm>
#include <cmath>
#include <map>

// The performance-portability metric is the one `kgb portability` prints;
// both commands share its definition.
#include "portability_metric.h"

namespace kgb::report {

std::optional<double> pass_at_k(int n, int c, int k) {
  if (n < 1 || k < 1 || k > n || c < 0 || c > n) return std::nullopt;
  if (c == 0) return 0.0;
  if (n - c < k) return 1.0;
  // C(n-c, k) / C(n, k) = prod_{i=n-c+1..n} (1 - k / i): no factorials, no overflow.
  double none_correct = 1.0;
  for (int i = n - c + 1; i <= n; ++i) none_correct *= 1.0 - static_cast<double>(k) / static_cast<double>(i);
  return 1.0 - none_correct;
}

std::optional<double> mean_pass_at_k(const std::vector<TaskSamples>& tasks, int k) {
  double sum = 0;
  int counted = 0;
  for (const auto& t : tasks)
    if (auto p = pass_at_k(t.n, t.c, k)) {
      sum += *p;
      ++counted;
    }
  if (counted == 0) return std::nullopt;
  return sum / counted;
}

double any_of_k_rounds(const std::vector<std::optional<int>>& first_success, int k) {
  if (first_success.empty()) return 0;
  const auto within = std::count_if(first_success.begin(), first_success.end(),
                                    [k](const std::optional<int>& r) { return r && *r >= 1 && *r <= k; });
  return static_cast<double>(within) / static_cast<double>(first_success.size());
}

std::optional<double> case_speedup(double baseline_median_us, double candidate_median_us) {
  if (!(baseline_median_us > 0) || !(candidate_median_us > 0)) return std::nullopt;
  return baseline_median_us / candidate_median_us;
}

std::optional<double> geometric_mean(const std::vector<double>& values) {
  double log_sum = 0;
  int n = 0;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) {
      log_sum += std::log(v);
      ++n;
    }
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / n);
}

double accuracy(const std::vector<TaskOutcome>& tasks) {
  if (tasks.empty()) return 0;
  const auto solved = std::count_if(tasks.begin(), tasks.end(), [](const TaskOutcome& t) { return t.solved; });
  return static_cast<double>(solved) / static_cast<double>(tasks.size());
}

std::optional<double> geomean_speedup_solved(const std::vector<TaskOutcome>& tasks) {
  std::vector<double> speedups;
  for (const auto& t : tasks)
    if (t.solved && t.speedup) speedups.push_back(*t.speedup);
  return geometric_mean(speedups);
}

std::set<std::string> matched_tasks(const std::vector<std::vector<TaskOutcome>>& runs) {
  std::set<std::string> matched;
  bool first = true;
  for (const auto& run : runs) {
    std::set<std::string> solved;
    for (const auto& t : run)
      if (t.solved) solved.insert(t.task);
    if (first) {
      matched = std::move(solved);
      first = false;
      continue;
    }
    std::set<std::string> both;
    std::set_intersection(matched.begin(), matched.end(), solved.begin(), solved.end(), std::inserter(both, both.end()));
    matched = std::move(both);
  }
  return matched;
}

std::optional<double> geomean_speedup_over(const std::vector<TaskOutcome>& tasks, const std::set<std::string>& subset) {
  std::vector<double> speedups;
  for (const auto& t : tasks)
    if (t.solved && t.speedup && subset.count(t.task)) speedups.push_back(*t.speedup);
  return geometric_mean(speedups);
}

double fast_p(const std::vector<TaskOutcome>& tasks, double p) {
  if (tasks.empty()) return 0;
  const auto fast = std::count_if(tasks.begin(), tasks.end(), [p](const TaskOutcome& t) {
    if (!t.solved) return false;
    if (p <= 0) return true;
    return t.speedup && *t.speedup > p;
  });
  return static_cast<double>(fast) / static_cast<double>(tasks.size());
}

const std::vector<double>& fast_p_thresholds() {
  static const std::vector<double> thresholds = {0.0, 0.8, 1.0, 1.5, 2.0};
  return thresholds;
}

const char* budget_kind_name(BudgetKind kind) {
  switch (kind) {
    case BudgetKind::Tokens: return "tokens";
    case BudgetKind::Dollars: return "dollars";
    case BudgetKind::Iterations: return "iterations";
  }
  return "?";
}

std::optional<double> spend_to_first_success(const std::vector<IterationSpend>& trajectory, BudgetKind kind) {
  double spent = 0;
  for (size_t i = 0; i < trajectory.size(); ++i) {
    const auto& it = trajectory[i];
    switch (kind) {
      case BudgetKind::Tokens: spent += static_cast<double>(it.tokens); break;
      case BudgetKind::Dollars: spent += it.usd; break;
      case BudgetKind::Iterations: spent = static_cast<double>(i + 1); break;
    }
    if (it.correct) return spent;
  }
  return std::nullopt;
}

namespace {

// The cheapest first success of each task (nullopt: never solved).
std::vector<std::optional<double>> task_costs(const std::vector<TaskTrajectories>& tasks, BudgetKind kind) {
  std::vector<std::optional<double>> costs;
  costs.reserve(tasks.size());
  for (const auto& t : tasks) {
    std::optional<double> best;
    for (const auto& a : t.attempts)
      if (auto c = spend_to_first_success(a, kind); c && (!best || *c < *best)) best = c;
    costs.push_back(best);
  }
  return costs;
}

}  // namespace

double accuracy_at_budget(const std::vector<TaskTrajectories>& tasks, BudgetKind kind, double budget) {
  if (tasks.empty()) return 0;
  const auto costs = task_costs(tasks, kind);
  const auto within = std::count_if(costs.begin(), costs.end(), [budget](const std::optional<double>& c) { return c && *c <= budget; });
  return static_cast<double>(within) / static_cast<double>(tasks.size());
}

std::vector<CurvePoint> budget_curve(const std::vector<TaskTrajectories>& tasks, BudgetKind kind) {
  std::vector<CurvePoint> curve;
  if (tasks.empty()) return curve;
  std::map<double, int> solved_at;  // budget -> tasks whose first success costs exactly that
  for (const auto& c : task_costs(tasks, kind))
    if (c) ++solved_at[*c];
  int solved = 0;
  for (const auto& [budget, count] : solved_at) {
    solved += count;
    curve.push_back({budget, static_cast<double>(solved) / static_cast<double>(tasks.size())});
  }
  return curve;
}

double accuracy_on_curve(const std::vector<CurvePoint>& curve, double budget) {
  double acc = 0;
  for (const auto& p : curve) {
    if (p.budget > budget) break;
    acc = p.accuracy;
  }
  return acc;
}

PerUnit per_unit(double total, int tasks, int successes) {
  PerUnit u;
  u.total = total;
  if (tasks > 0) u.per_task = total / tasks;
  if (successes > 0) u.per_success = total / successes;
  return u;
}

double accuracy_gap_points(double platform_accuracy, double reference_accuracy) {
  return 100.0 * (platform_accuracy - reference_accuracy);
}

SolvedOnAll solved_on_all(const std::vector<std::set<std::string>>& solved, const std::vector<std::set<std::string>>& attempted) {
  SolvedOnAll r;
  if (attempted.empty() || solved.size() != attempted.size()) return r;
  std::set<std::string> common = attempted.front();
  for (size_t i = 1; i < attempted.size(); ++i) {
    std::set<std::string> both;
    std::set_intersection(common.begin(), common.end(), attempted[i].begin(), attempted[i].end(), std::inserter(both, both.end()));
    common = std::move(both);
  }
  r.common = static_cast<int>(common.size());
  for (const auto& task : common)
    if (std::all_of(solved.begin(), solved.end(), [&](const std::set<std::string>& s) { return s.count(task) > 0; })) ++r.solved;
  if (r.common > 0) r.rate = static_cast<double>(r.solved) / r.common;
  return r;
}

std::optional<double> performance_portability(const std::vector<PlatformResult>& platforms) {
  std::vector<cli::PlatformOutcome> outcomes;
  outcomes.reserve(platforms.size());
  for (const auto& p : platforms) outcomes.push_back({p.solved, p.efficiency});
  if (outcomes.empty()) return std::nullopt;
  return cli::performance_portability(outcomes);
}

}  // namespace kgb::report
