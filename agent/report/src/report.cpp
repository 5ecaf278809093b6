#include "kgb/report/report.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>

namespace kgb::report {

namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

bool attempt_finished(const Attempt& a) { return a.status != "pending" && a.status != "running"; }

const Iteration* find_iteration(const Attempt& a, int index) {
  for (const auto& it : a.iterations)
    if (it.index == index) return &it;
  return nullptr;
}

// An iteration is a success when it is marked correct and none of its
// evaluations failed: every correctness case and every anti-cheating layer
// (lint, dynamic checks, timed re-checks, roofline floor) passed.
bool iteration_succeeded(const Iteration& it) {
  return it.correct && std::all_of(it.evaluations.begin(), it.evaluations.end(), [](const Evaluation& e) { return e.passed; });
}

bool attempt_solved(const Attempt& a) {
  if (!a.correct) return false;
  if (const Iteration* best = find_iteration(a, a.best_iteration)) return iteration_succeeded(*best);
  return true;
}

std::vector<const Iteration*> in_order(const Attempt& a) {
  std::vector<const Iteration*> its;
  for (const auto& it : a.iterations) its.push_back(&it);
  std::sort(its.begin(), its.end(), [](const Iteration* x, const Iteration* y) { return x->index < y->index; });
  return its;
}

std::optional<int> first_success(const Attempt& a) {
  for (const Iteration* it : in_order(a))
    if (iteration_succeeded(*it)) return it->index + 1;
  return std::nullopt;
}

// What each iteration spent; successes only in a solved attempt, so the
// curves end at the accuracy (an attempt a killed session left running has
// none yet).
std::vector<IterationSpend> trajectory(const Attempt& a, bool solved) {
  std::vector<IterationSpend> t;
  for (const Iteration* it : in_order(a)) t.push_back({it->tokens.total(), it->cost_usd, solved && iteration_succeeded(*it)});
  return t;
}

// The sample policy's iterations are independent samples (own conversation
// "sample-N", no feedback); every other policy's attempt is one sample.
bool independent_iterations(const Attempt& a) {
  if (a.iterations.empty()) return false;
  return std::all_of(a.iterations.begin(), a.iterations.end(),
                     [](const Iteration& it) { return it.conversation.rfind("sample-", 0) == 0; });
}

// The timed performance cases of the attempt's best kernel: the last
// evaluation with timings of its best iteration.
std::vector<CaseResult> timed_cases(const Attempt& a, const ReportOptions& options) {
  std::vector<CaseResult> cases;
  const Iteration* best = find_iteration(a, a.best_iteration);
  if (!best) return cases;
  const Evaluation* timed = nullptr;
  for (const auto& e : best->evaluations)
    if (e.passed && !e.cases.empty()) timed = &e;
  if (!timed) return cases;
  for (const auto& c : timed->cases) {
    CaseResult r;
    r.name = c.name;
    r.dtype = c.dtype;
    r.baseline_kind = c.baseline_kind;
    r.candidate_us = c.candidate_us;
    r.baseline_us = c.baseline_us;
    if (c.speedup > 0) {
      r.speedup = c.speedup;
      if (c.speedup_high > 0) {
        r.speedup_low = c.speedup_low;
        r.speedup_high = c.speedup_high;
      }
    } else if (c.baseline_us) {
      r.speedup = case_speedup(*c.baseline_us, c.candidate_us);
    }
    r.unstable = c.unstable;
    r.excluded = c.unstable && options.exclude_unstable;
    cases.push_back(std::move(r));
  }
  return cases;
}

std::optional<double> cases_geomean(const std::vector<CaseResult>& cases) {
  std::vector<double> s;
  for (const auto& c : cases)
    if (c.speedup && !c.excluded) s.push_back(*c.speedup);
  return geometric_mean(s);
}

std::vector<TaskOutcome> outcomes(const RunReport& r) {
  std::vector<TaskOutcome> out;
  for (const auto& t : r.tasks) out.push_back({t.task, t.solved, t.speedup});
  return out;
}

RunReport run_report(Run run, const ReportOptions& options) {
  RunReport r;
  std::map<std::string, std::vector<size_t>> by_task;
  for (size_t i = 0; i < run.attempts.size(); ++i) by_task[run.attempts[i].task].push_back(i);

  bool any_independent = false;
  std::vector<std::optional<int>> first_successes;  // per attempt
  std::vector<double> iterations_to_success;
  std::vector<TaskTrajectories> trajectories;
  std::vector<TaskSamples> samples;
  for (const auto& [task, indexes] : by_task) {
    TaskResult t;
    t.task = task;
    t.source = task_source(task);
    TaskTrajectories tt{task, {}};
    int best_solved = -1;
    double best_speed = 0;
    for (size_t i : indexes) {
      const Attempt& a = run.attempts[i];
      ++t.attempts;
      t.tokens += a.tokens;
      t.usd += a.cost_usd;
      t.seconds += a.seconds;
      t.time += a.time;
      t.iterations += static_cast<int>(a.iterations.size());
      const bool solved = attempt_solved(a);
      if (solved) {
        ++t.solved_attempts;
        // The attempt shown for the task: the fastest solved one.
        const double speed = cases_geomean(timed_cases(a, options)).value_or(0);
        if (best_solved < 0 || speed > best_speed) {
          best_solved = static_cast<int>(i);
          best_speed = speed;
        }
      }
      const auto first = solved ? first_success(a) : std::nullopt;
      if (first && (!t.first_success || *first < *t.first_success)) t.first_success = first;
      if (attempt_finished(a)) {
        first_successes.push_back(first);
        if (first) iterations_to_success.push_back(*first);
      }
      tt.attempts.push_back(trajectory(a, solved));
      if (!attempt_finished(a)) continue;
      if (independent_iterations(a)) {
        any_independent = true;
        for (const auto& it : a.iterations)
          if (it.finished && it.outcome != "budget") {
            ++t.samples;
            if (iteration_succeeded(it)) ++t.correct_samples;
          }
      } else {
        ++t.samples;
        if (solved) ++t.correct_samples;
      }
    }
    t.solved = t.solved_attempts > 0;
    t.shown_attempt = best_solved >= 0 ? best_solved : static_cast<int>(indexes.back());
    if (best_solved >= 0) {
      t.cases = timed_cases(run.attempts[static_cast<size_t>(best_solved)], options);
      t.speedup = cases_geomean(t.cases);
    }
    trajectories.push_back(std::move(tt));
    samples.push_back({t.samples, t.correct_samples});
    r.tasks.push_back(std::move(t));
  }

  r.sample_unit = any_independent ? "sample" : "attempt";
  const auto outs = outcomes(r);
  r.accuracy = accuracy(outs);
  r.solved = static_cast<int>(std::count_if(r.tasks.begin(), r.tasks.end(), [](const TaskResult& t) { return t.solved; }));
  std::map<std::string, SourceAccuracy> sources;
  for (const auto& t : r.tasks) {
    auto& s = sources[t.source];
    s.source = t.source;
    ++s.tasks;
    if (t.solved) ++s.solved;
  }
  for (auto& [name, s] : sources) {
    s.accuracy = s.tasks ? static_cast<double>(s.solved) / s.tasks : 0;
    r.sources.push_back(s);
  }
  for (int k : options.pass_k) r.pass_at_k.push_back({k, mean_pass_at_k(samples, k)});
  for (int k : options.rounds_k) r.any_of_rounds.push_back({k, any_of_k_rounds(first_successes, k)});
  r.timed_solved = static_cast<int>(std::count_if(r.tasks.begin(), r.tasks.end(), [](const TaskResult& t) { return t.solved && t.speedup; }));
  r.geomean_solved = geomean_speedup_solved(outs);
  for (double p : fast_p_thresholds()) r.fast_p.push_back({p, fast_p(outs, p)});

  const int n_tasks = static_cast<int>(r.tasks.size());
  r.tokens = per_unit(static_cast<double>(run.tokens.total()), n_tasks, r.solved);
  r.usd = per_unit(run.cost_usd, n_tasks, r.solved);
  double seconds = 0;
  for (const auto& t : r.tasks) {
    seconds += t.seconds;
    r.time += t.time;
    r.iterations += t.iterations;
  }
  r.seconds = per_unit(seconds, n_tasks, r.solved);
  if (!iterations_to_success.empty()) {
    double sum = 0;
    for (double v : iterations_to_success) sum += v;
    r.mean_iterations_to_success = sum / static_cast<double>(iterations_to_success.size());
    std::sort(iterations_to_success.begin(), iterations_to_success.end());
    const size_t n = iterations_to_success.size();
    r.median_iterations_to_success =
        n % 2 ? iterations_to_success[n / 2] : (iterations_to_success[n / 2 - 1] + iterations_to_success[n / 2]) / 2;
  }
  r.curve_tokens = budget_curve(trajectories, BudgetKind::Tokens);
  r.curve_usd = budget_curve(trajectories, BudgetKind::Dollars);
  r.curve_iterations = budget_curve(trajectories, BudgetKind::Iterations);
  r.label = run.id;
  r.describe = run.policy + ", " + run.provider + "/" + run.model + ", " + run.platform;
  r.run = std::move(run);
  return r;
}


std::optional<double> ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b <= 0) return std::nullopt;
  return *a / *b;
}

Difference difference(const Report& report, size_t run, size_t against) {
  const RunReport& a = report.runs[run];
  const RunReport& b = report.runs[against];
  Difference d;
  d.run = run;
  d.against = against;
  d.accuracy_points = 100.0 * (a.accuracy - b.accuracy);
  d.geomean_ratio = ratio(a.geomean_solved, b.geomean_solved);
  d.matched_ratio = ratio(a.geomean_matched, b.geomean_matched);
  d.tokens_per_success_ratio = ratio(a.tokens.per_success, b.tokens.per_success);
  d.usd_delta = a.usd.total - b.usd.total;
  std::map<std::string, const TaskResult*> theirs;
  for (const auto& t : b.tasks) theirs[t.task] = &t;
  for (const auto& t : a.tasks) {
    auto it = theirs.find(t.task);
    const TaskResult* o = it == theirs.end() ? nullptr : it->second;
    const bool other_solved = o && o->solved;
    if (t.solved && !other_solved) d.gained.push_back(t.task);
    if (!t.solved && other_solved) d.lost.push_back(t.task);
    if (t.solved && other_solved && t.speedup && o->speedup && *o->speedup > 0) {
      const double r = *t.speedup / *o->speedup;
      if (r >= 1.1) d.faster.push_back(t.task);
      if (r <= 1.0 / 1.1) d.slower.push_back(t.task);
    }
  }
  for (const auto& t : b.tasks)
    if (t.solved && std::none_of(a.tasks.begin(), a.tasks.end(), [&](const TaskResult& x) { return x.task == t.task; }))
      d.lost.push_back(t.task);
  return d;
}

std::vector<PortabilityGroup> portability_groups(const Report& report, const ReportOptions& options) {
  // Configurations in the order of their first run.
  std::vector<std::string> order;
  std::map<std::string, std::vector<size_t>> by_config;
  for (size_t i = 0; i < report.runs.size(); ++i) {
    const Run& run = report.runs[i].run;
    const std::string config = run.policy + ", " + run.provider + "/" + run.model;
    if (!by_config.count(config)) order.push_back(config);
    by_config[config].push_back(i);
  }
  std::vector<PortabilityGroup> groups;
  for (const auto& config : order) {
    const auto& members = by_config[config];
    PortabilityGroup g;
    g.configuration = config;
    std::map<std::string, std::vector<size_t>> by_platform;
    for (size_t i : members) {
      const std::string& p = report.runs[i].run.platform;
      if (!by_platform.count(p)) g.platforms.push_back(p);
      by_platform[p].push_back(i);
    }
    if (g.platforms.size() < 2) continue;
    g.reference = g.platforms.front();
    if (!options.reference_platform.empty() && by_platform.count(options.reference_platform))
      g.reference = options.reference_platform;
    std::stable_partition(g.platforms.begin(), g.platforms.end(), [&](const std::string& p) { return p == g.reference; });

    // Several runs of the configuration on one platform are merged: a task is
    // solved there when any of them solved it, with the best speedup.
    std::vector<std::map<std::string, PortabilityCell>> per_platform;
    std::vector<std::set<std::string>> attempted, solved;
    for (const auto& p : g.platforms) {
      std::map<std::string, PortabilityCell> cells;
      std::vector<std::string> ids;
      for (size_t i : by_platform[p]) {
        ids.push_back(report.runs[i].run.id);
        for (const auto& t : report.runs[i].tasks) {
          auto& c = cells[t.task];
          c.attempted = true;
          if (t.solved) {
            c.solved = true;
            if (t.speedup && (!c.speedup || *t.speedup > *c.speedup)) c.speedup = t.speedup;
          }
        }
      }
      std::set<std::string> a, s;
      for (const auto& [task, c] : cells) {
        a.insert(task);
        if (c.solved) s.insert(task);
      }
      attempted.push_back(std::move(a));
      solved.push_back(std::move(s));
      per_platform.push_back(std::move(cells));
      g.runs.push_back(std::move(ids));
    }
    g.solved_on_all = solved_on_all(solved, attempted);
    std::set<std::string> common = attempted.front();
    for (const auto& a : attempted) {
      std::set<std::string> both;
      std::set_intersection(common.begin(), common.end(), a.begin(), a.end(), std::inserter(both, both.end()));
      common = std::move(both);
    }
    g.tasks.assign(common.begin(), common.end());
    for (size_t p = 0; p < g.platforms.size(); ++p) {
      int s = 0;
      for (const auto& task : g.tasks)
        if (per_platform[p][task].solved) ++s;
      g.accuracy.push_back(g.tasks.empty() ? 0 : static_cast<double>(s) / static_cast<double>(g.tasks.size()));
    }
    for (size_t p = 0; p < g.platforms.size(); ++p) g.gap_points.push_back(accuracy_gap_points(g.accuracy[p], g.accuracy[0]));
    double pp_sum = 0;
    int pp_n = 0;
    for (const auto& task : g.tasks) {
      std::vector<PortabilityCell> row;
      std::vector<PlatformResult> results;
      for (size_t p = 0; p < g.platforms.size(); ++p) {
        row.push_back(per_platform[p][task]);
        results.push_back({row.back().solved, row.back().speedup});
      }
      const auto pp = performance_portability(results);
      if (pp) {
        pp_sum += *pp;
        ++pp_n;
      }
      g.portability.push_back(pp);
      g.cells.push_back(std::move(row));
    }
    if (pp_n) g.mean_portability = pp_sum / pp_n;
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace

Result<Report> build_report(std::vector<Run> runs, const ReportOptions& options) {
  if (runs.empty()) return make_error("report.no-runs", "a report needs at least one run");
  if (!options.reference_platform.empty() &&
      std::none_of(runs.begin(), runs.end(), [&](const Run& r) { return r.platform == options.reference_platform; }))
    return make_error("report.reference-platform", "no run of the report is on the reference platform " + options.reference_platform);
  Report report;
  report.store_file = options.store_file;
  report.generated_at = utc_now();
  for (auto& run : runs) report.runs.push_back(run_report(std::move(run), options));

  std::vector<std::vector<TaskOutcome>> all;
  for (const auto& r : report.runs) all.push_back(outcomes(r));
  report.matched = matched_tasks(all);
  for (size_t i = 0; i < report.runs.size(); ++i) report.runs[i].geomean_matched = geomean_speedup_over(all[i], report.matched);
  for (size_t i = 1; i < report.runs.size(); ++i) report.differences.push_back(difference(report, i, 0));
  report.portability = portability_groups(report, options);
  return report;
}

}  // namespace kgb::report
