// A report over one or more runs: the metrics of metrics.h applied to the
// runs of model.h, per run, per task, per source, across runs (comparison,
// matched subset) and across platforms (portability).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kgb/report/metrics.h"
#include "kgb/report/model.h"
#include "kgb/result.h"

namespace kgb::report {

struct ReportOptions {
  // Platform the portability section compares against; empty: the platform of
  // the first run of each configuration.
  std::string reference_platform;
  std::vector<int> pass_k = {1, 5, 10};
  std::vector<int> rounds_k = {1, 3, 5};
  std::string store_file;  // shown in the report
  // Leave cases whose speedup interval the harness flagged as too wide out of
  // every speedup figure (they are still listed, marked).
  bool exclude_unstable = false;
};

struct CaseResult {
  std::string name, dtype, baseline_kind;
  double candidate_us = 0;
  std::optional<double> baseline_us;
  std::optional<double> speedup;  // the harness's paired speedup (older records: baseline / candidate median)
  std::optional<double> speedup_low, speedup_high;  // its 95% interval, when recorded
  bool unstable = false;          // flagged by the harness: the interval is wide
  bool excluded = false;          // left out of the speedup figures (ReportOptions::exclude_unstable)
};

// One task of one run.
struct TaskResult {
  std::string task, source;
  int attempts = 0, solved_attempts = 0;
  bool solved = false;
  std::optional<double> speedup;        // geomean over the performance cases of the shown attempt
  std::vector<CaseResult> cases;
  std::optional<int> first_success;     // 1-based iteration of the earliest first success over attempts
  int samples = 0, correct_samples = 0; // the pass@k units (see RunReport::sample_unit)
  TokenUse tokens;
  double usd = 0, seconds = 0;
  TimeSplit time;
  int iterations = 0;
  int shown_attempt = -1;               // index into Run::attempts: the best solved one, else the last
};

struct SourceAccuracy {
  std::string source;
  int tasks = 0, solved = 0;
  double accuracy = 0;
};

struct PassAtK {
  int k = 0;
  std::optional<double> value;  // nullopt: no task has k samples
};

struct AnyOfRounds {
  int k = 0;
  double value = 0;
};

struct FastP {
  double p = 0;
  double value = 0;
};

struct RunReport {
  Run run;
  std::string label;      // short name in tables and charts
  std::string describe;   // policy, provider/model, platform
  std::vector<TaskResult> tasks;  // sorted by id
  int solved = 0;
  double accuracy = 0;
  std::vector<SourceAccuracy> sources;
  std::string sample_unit;        // "attempt" or "sample" (an independent iteration of the sample policy)
  std::vector<PassAtK> pass_at_k;
  std::vector<AnyOfRounds> any_of_rounds;
  int timed_solved = 0;           // solved tasks with a speedup
  std::optional<double> geomean_solved, geomean_matched;
  std::vector<FastP> fast_p;
  PerUnit tokens, usd, seconds;   // per task: all tasks; per success: solved tasks
  TimeSplit time;
  int iterations = 0;
  std::optional<double> mean_iterations_to_success, median_iterations_to_success;
  std::vector<CurvePoint> curve_tokens, curve_usd, curve_iterations;
};

struct PortabilityCell {
  bool attempted = false, solved = false;
  std::optional<double> speedup;
};

// One agent configuration (policy, provider, model) run on several platforms.
struct PortabilityGroup {
  std::string configuration;
  std::string reference;                // reference platform
  std::vector<std::string> platforms;   // the reference first
  std::vector<std::vector<std::string>> runs;  // run ids per platform
  std::vector<std::string> tasks;       // attempted on every platform
  std::vector<double> accuracy;         // per platform, over `tasks`
  std::vector<double> gap_points;       // per platform, against the reference
  SolvedOnAll solved_on_all;
  std::vector<std::vector<PortabilityCell>> cells;  // [task][platform]
  std::vector<std::optional<double>> portability;   // per task
  std::optional<double> mean_portability;           // over tasks where it is defined
};

// A run against the first run of the report.
struct Difference {
  size_t run = 0, against = 0;
  double accuracy_points = 0;
  std::optional<double> geomean_ratio;          // run / against, over solved tasks
  std::optional<double> matched_ratio;          // run / against, over the matched subset
  std::optional<double> tokens_per_success_ratio;
  double usd_delta = 0;
  std::vector<std::string> gained, lost;        // solved only by `run` / only by `against`
  std::vector<std::string> faster, slower;      // matched tasks at least 10% faster / slower
};

struct Report {
  std::string store_file, generated_at;
  std::vector<RunReport> runs;
  std::set<std::string> matched;  // solved by every run
  std::vector<PortabilityGroup> portability;
  std::vector<Difference> differences;
};

// Errors: "report.no-runs", "report.reference-platform" (no run on it).
Result<Report> build_report(std::vector<Run> runs, const ReportOptions& options);

}  // namespace kgb::report
