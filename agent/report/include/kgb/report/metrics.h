// The report's metrics as pure functions over plain values. Each function
// states its definition here; the same definitions are printed by
// `kgb report --help` (definitions.h) and documented in docs/reports.md.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kgb::report {

// --- Correctness ------------------------------------------------------------

// pass@k, unbiased estimator (Chen et al. 2021) from n independent samples of
// a task of which c are correct: 1 - C(n-c, k) / C(n, k), the probability that
// at least one of k samples drawn without replacement is correct. Computed in
// the numerically stable product form 1 - prod_{i=n-c+1..n} (1 - k/i).
// 1 when k > n - c (every k-subset holds a correct sample), 0 when c = 0.
// Undefined (nullopt) when k < 1, n < 1, k > n or c is outside [0, n].
std::optional<double> pass_at_k(int n, int c, int k);

// The mean of pass_at_k over tasks; tasks with fewer than k samples are left
// out. nullopt when no task has k samples.
struct TaskSamples {
  int n = 0;  // independent samples
  int c = 0;  // of which correct
};
std::optional<double> mean_pass_at_k(const std::vector<TaskSamples>& tasks, int k);

// "Any of K rounds" (what the Python KernelGenBench reports as pass@k, a
// different quantity): the share of trajectories whose first correct kernel
// came in one of the first K iterations (rounds) of iterative refinement. `first_success` holds, per
// trajectory, the 1-based round of its first success (nullopt: never).
double any_of_k_rounds(const std::vector<std::optional<int>>& first_success, int k);

// --- Speedup -----------------------------------------------------------------

// Speedup of one performance case: baseline median time / candidate median
// time. nullopt when either time is missing (<= 0).
std::optional<double> case_speedup(double baseline_median_us, double candidate_median_us);

// Geometric mean of the positive values (non-positive values are not
// speedups and are ignored). nullopt when none is left.
std::optional<double> geometric_mean(const std::vector<double>& values);

// One task of one run as the aggregate metrics see it.
struct TaskOutcome {
  std::string task;
  bool solved = false;            // every correctness case and every anti-cheating layer passed
  std::optional<double> speedup;  // geometric mean over the task's performance cases (solved and timed only)
};

// Accuracy: solved tasks / all tasks. 0 for an empty list.
double accuracy(const std::vector<TaskOutcome>& tasks);

// Global speedup over solved tasks: the geometric mean of the per-task
// speedups of the solved, timed tasks. Failed tasks take no part (which
// favours a run that solves only easy tasks: see the matched subset).
std::optional<double> geomean_speedup_solved(const std::vector<TaskOutcome>& tasks);

// The matched subset: the tasks solved by every one of the compared runs
// (an empty list of runs matches nothing).
std::set<std::string> matched_tasks(const std::vector<std::vector<TaskOutcome>>& runs);

// Global speedup over a subset: the geometric mean of the per-task speedups of
// the solved, timed tasks whose id is in `subset`.
std::optional<double> geomean_speedup_over(const std::vector<TaskOutcome>& tasks, const std::set<std::string>& subset);

// fast_p: the share of ALL tasks (failed ones stay in the denominator) that
// are solved with a speedup above p. fast_0 counts every solved task (a
// correct kernel has a positive speedup even when it was not timed); for
// p > 0 an untimed task does not count.
double fast_p(const std::vector<TaskOutcome>& tasks, double p);
// The thresholds every report shows.
const std::vector<double>& fast_p_thresholds();

// --- Budget curves -------------------------------------------------------------

// One iteration of a recorded trajectory: what it spent and whether it
// produced the first (or a later) correct kernel.
struct IterationSpend {
  int64_t tokens = 0;
  double usd = 0;
  bool correct = false;
};

enum class BudgetKind { Tokens, Dollars, Iterations };
const char* budget_kind_name(BudgetKind kind);

// What a trajectory had spent when its first correct kernel came: the sum over
// the iterations up to and including that one (iterations: its 1-based
// index). nullopt when no iteration was correct.
std::optional<double> spend_to_first_success(const std::vector<IterationSpend>& trajectory, BudgetKind kind);

// A task's trajectories (its attempts).
struct TaskTrajectories {
  std::string task;
  std::vector<std::vector<IterationSpend>> attempts;
};

// Accuracy at budget B: the share of all tasks with an attempt whose first
// success came within B (spend_to_first_success <= B).
double accuracy_at_budget(const std::vector<TaskTrajectories>& tasks, BudgetKind kind, double budget);

// The whole curve as steps: one point per distinct budget at which a task
// becomes solved, ascending, each with the accuracy from that budget on.
struct CurvePoint {
  double budget = 0;
  double accuracy = 0;
};
std::vector<CurvePoint> budget_curve(const std::vector<TaskTrajectories>& tasks, BudgetKind kind);
// The accuracy a step curve gives at budget B (0 before its first step).
double accuracy_on_curve(const std::vector<CurvePoint>& curve, double budget);

// --- Cost ------------------------------------------------------------------

// A total spread over tasks and over successes; nullopt where the divisor is 0.
struct PerUnit {
  double total = 0;
  std::optional<double> per_task, per_success;
};
PerUnit per_unit(double total, int tasks, int successes);

// --- Portability -------------------------------------------------------------

// Accuracy gap of a platform against the reference platform, in percentage
// points: 100 * (accuracy(platform) - accuracy(reference)).
double accuracy_gap_points(double platform_accuracy, double reference_accuracy);

// Tasks solved on all platforms: the tasks solved on every platform, over the
// tasks every platform attempted. `solved[p]` lists platform p's solved tasks,
// `attempted[p]` its tasks. 0 when no task is common to all.
struct SolvedOnAll {
  int solved = 0, common = 0;
  double rate = 0;
};
SolvedOnAll solved_on_all(const std::vector<std::set<std::string>>& solved, const std::vector<std::set<std::string>>& attempted);

// Performance portability of one task (Pennycook et al.): the harmonic mean of
// its per-platform efficiencies (speedup over each platform's own baseline),
// 0 when it fails on any platform. A platform that passed without an
// efficiency (not timed) adds no term; nullopt when no platform has one.
struct PlatformResult {
  bool solved = false;
  std::optional<double> efficiency;
};
std::optional<double> performance_portability(const std::vector<PlatformResult>& platforms);

}  // namespace kgb::report
