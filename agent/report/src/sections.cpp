#include "sections.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "format.h"

namespace kgb::report {

namespace {

std::vector<bool> numeric_after_first(size_t columns) {
  std::vector<bool> n(columns, true);
  if (!n.empty()) n[0] = false;
  return n;
}

std::string join(const std::vector<std::string>& items, const std::string& sep, size_t limit = 12) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? sep : "") + items[i];
  if (items.size() > limit) out += sep + "... (" + std::to_string(items.size() - limit) + " more)";
  return out.empty() ? "-" : out;
}

Section runs_section(const Report& report) {
  Section s{"runs", "Runs", {}, {}};
  TextTable t;
  t.header = {"run", "status", "policy", "provider/model", "platform", "tasks", "samples", "created", "revision"};
  t.numeric = {false, false, false, false, false, true, true, false, false};
  for (const auto& r : report.runs)
    t.rows.push_back({r.label, r.run.status, r.run.policy, r.run.provider + "/" + r.run.model, r.run.platform,
                      std::to_string(r.tasks.size()), std::to_string(r.run.samples), r.run.created_at,
                      r.run.git_revision});
  s.tables.push_back(std::move(t));
  if (!report.store_file.empty()) s.paragraphs.push_back("Run store: " + report.store_file + ". Generated " + report.generated_at + ".");
  return s;
}

Section summary_section(const Report& report) {
  Section s{"summary", "Summary", {}, {}};
  TextTable t;
  t.header.push_back("metric");
  for (const auto& r : report.runs) t.header.push_back(r.label);
  t.numeric = numeric_after_first(t.header.size());
  auto row = [&](const std::string& name, auto value) {
    std::vector<std::string> cells = {name};
    for (const auto& r : report.runs) cells.push_back(value(r));
    t.rows.push_back(std::move(cells));
  };
  row("platform", [](const RunReport& r) { return r.run.platform; });
  row("solved / tasks", [](const RunReport& r) { return std::to_string(r.solved) + " / " + std::to_string(r.tasks.size()); });
  row("accuracy", [](const RunReport& r) { return fmt::percent(r.accuracy); });
  if (!report.runs.empty())
    for (size_t i = 0; i < report.runs.front().pass_at_k.size(); ++i) {
      const int k = report.runs.front().pass_at_k[i].k;
      row("pass@" + std::to_string(k) + " (unbiased estimator)", [i](const RunReport& r) {
        return r.pass_at_k[i].value ? fmt::percent(*r.pass_at_k[i].value) + " per " + r.sample_unit : std::string("-");
      });
    }
  if (!report.runs.empty())
    for (size_t i = 0; i < report.runs.front().any_of_rounds.size(); ++i) {
      const int k = report.runs.front().any_of_rounds[i].k;
      row("solved within " + std::to_string(k) + " round(s) (any-of-K)", [i](const RunReport& r) { return fmt::percent(r.any_of_rounds[i].value); });
    }
  row("speedup, geomean over solved", [](const RunReport& r) {
    return fmt::speedup(r.geomean_solved) + " (" + std::to_string(r.timed_solved) + " timed)";
  });
  row("speedup, geomean over matched (" + std::to_string(report.matched.size()) + ")",
      [](const RunReport& r) { return fmt::speedup(r.geomean_matched); });
  if (!report.runs.empty())
    for (size_t i = 0; i < report.runs.front().fast_p.size(); ++i) {
      const double p = report.runs.front().fast_p[i].p;
      row("fast_" + fmt::fixed(p, p == std::floor(p) ? 0 : 1), [i](const RunReport& r) { return fmt::percent(r.fast_p[i].value); });
    }
  row("iterations", [](const RunReport& r) { return std::to_string(r.iterations); });
  row("iterations to first success (mean / median)", [](const RunReport& r) {
    return fmt::number(r.mean_iterations_to_success, 2) + " / " + fmt::number(r.median_iterations_to_success, 1);
  });
  // Estimated usage is marked wherever it enters a total.
  row("tokens, total", [](const RunReport& r) {
    return fmt::count(r.tokens.total) + (r.run.estimated_usage_calls > 0 ? " (estimated in part)" : "");
  });
  row("tokens per task", [](const RunReport& r) { return fmt::count(r.tokens.per_task); });
  row("tokens per success", [](const RunReport& r) { return fmt::count(r.tokens.per_success); });
  row("  input (uncached / cached)", [](const RunReport& r) {
    return fmt::count(static_cast<double>(r.run.tokens.uncached_input())) + " / " + fmt::count(static_cast<double>(r.run.tokens.cached_input));
  });
  row("  output (visible / reasoning)", [](const RunReport& r) {
    return fmt::count(static_cast<double>(r.run.tokens.visible_output())) + " / " + fmt::count(static_cast<double>(r.run.tokens.reasoning));
  });
  row("LLM calls", [](const RunReport& r) {
    std::string text = std::to_string(r.run.llm_calls);
    if (r.run.estimated_usage_calls > 0) text += ", " + std::to_string(r.run.estimated_usage_calls) + " with estimated usage";
    if (r.run.missing_usage_calls > 0) text += ", " + std::to_string(r.run.missing_usage_calls) + " without usage";
    return text;
  });
  row("dollars, total", [](const RunReport& r) { return fmt::usd(r.usd.total); });
  row("dollars per task", [](const RunReport& r) { return fmt::usd(r.usd.per_task); });
  row("dollars per success", [](const RunReport& r) { return fmt::usd(r.usd.per_success); });
  row("time per task", [](const RunReport& r) { return fmt::seconds(r.seconds.per_task); });
  row("time per success", [](const RunReport& r) { return fmt::seconds(r.seconds.per_success); });
  auto share = [](double part, double total) { return total > 0 ? fmt::percent(part / total, 0) : std::string("-"); };
  row("  LLM latency", [&](const RunReport& r) { return fmt::seconds(r.time.llm) + " (" + share(r.time.llm, r.time.total()) + ")"; });
  row("  lint", [&](const RunReport& r) { return fmt::seconds(r.time.lint) + " (" + share(r.time.lint, r.time.total()) + ")"; });
  row("  compile", [&](const RunReport& r) { return fmt::seconds(r.time.compile) + " (" + share(r.time.compile, r.time.total()) + ")"; });
  row("  run (correctness)", [&](const RunReport& r) { return fmt::seconds(r.time.run) + " (" + share(r.time.run, r.time.total()) + ")"; });
  row("  profile (timing)", [&](const RunReport& r) { return fmt::seconds(r.time.profile) + " (" + share(r.time.profile, r.time.total()) + ")"; });
  row("  other harness time", [&](const RunReport& r) { return fmt::seconds(r.time.other) + " (" + share(r.time.other, r.time.total()) + ")"; });
  s.tables.push_back(std::move(t));
  return s;
}

Section differences_section(const Report& report) {
  Section s{"differences", "Differences against " + report.runs.front().label, {}, {}};
  TextTable t;
  t.header = {"run", "accuracy", "speedup (solved)", "speedup (matched)", "tokens/success", "dollars", "solved only here",
              "solved only by " + report.runs.front().label, "matched: >=10% faster", "matched: >=10% slower"};
  t.numeric = {false, true, true, true, true, true, false, false, false, false};
  for (const auto& d : report.differences) {
    t.rows.push_back({report.runs[d.run].label, fmt::points(d.accuracy_points), fmt::ratio(d.geomean_ratio), fmt::ratio(d.matched_ratio),
                      fmt::ratio(d.tokens_per_success_ratio), (d.usd_delta >= 0 ? "+" : "-") + fmt::usd(std::fabs(d.usd_delta)),
                      join(d.gained, ", "), join(d.lost, ", "), join(d.faster, ", "), join(d.slower, ", ")});
  }
  s.paragraphs.push_back("Accuracy in percentage points; speedups and tokens as ratios (this run / " + report.runs.front().label +
                         "); dollars as a difference.");
  s.tables.push_back(std::move(t));
  return s;
}

Section sources_section(const Report& report) {
  Section s{"sources", "Accuracy by source and platform", {}, {}};
  TextTable t;
  t.header.push_back("source");
  for (const auto& r : report.runs) t.header.push_back(r.label + " (" + r.run.platform + ")");
  t.numeric = numeric_after_first(t.header.size());
  std::vector<std::string> sources;
  for (const auto& r : report.runs)
    for (const auto& src : r.sources)
      if (std::find(sources.begin(), sources.end(), src.source) == sources.end()) sources.push_back(src.source);
  std::sort(sources.begin(), sources.end());
  for (const auto& name : sources) {
    std::vector<std::string> cells = {name};
    for (const auto& r : report.runs) {
      auto it = std::find_if(r.sources.begin(), r.sources.end(), [&](const SourceAccuracy& a) { return a.source == name; });
      cells.push_back(it == r.sources.end() ? "-"
                                            : std::to_string(it->solved) + "/" + std::to_string(it->tasks) + " " + fmt::percent(it->accuracy, 0));
    }
    t.rows.push_back(std::move(cells));
  }
  std::vector<std::string> all = {"all"};
  for (const auto& r : report.runs)
    all.push_back(std::to_string(r.solved) + "/" + std::to_string(r.tasks.size()) + " " + fmt::percent(r.accuracy, 0));
  t.rows.push_back(std::move(all));
  s.tables.push_back(std::move(t));
  return s;
}

const std::vector<CurvePoint>& curve_of(const RunReport& r, BudgetKind kind) {
  switch (kind) {
    case BudgetKind::Tokens: return r.curve_tokens;
    case BudgetKind::Dollars: return r.curve_usd;
    case BudgetKind::Iterations: return r.curve_iterations;
  }
  return r.curve_tokens;
}

Section budget_section(const Report& report) {
  Section s{"budget", "Accuracy by budget", {}, {}};
  s.paragraphs.push_back("A task counts at budget B when one of its attempts had spent at most B when its first correct kernel came.");
  for (BudgetKind kind : {BudgetKind::Iterations, BudgetKind::Tokens, BudgetKind::Dollars}) {
    const auto grid = budget_grid(report, kind);
    if (grid.empty()) continue;
    TextTable t;
    t.caption = std::string("budget in ") + budget_kind_name(kind);
    t.header.push_back(budget_kind_name(kind));
    for (const auto& r : report.runs) t.header.push_back(r.label);
    t.numeric = std::vector<bool>(t.header.size(), true);
    for (double b : grid) {
      std::vector<std::string> cells = {kind == BudgetKind::Dollars ? fmt::usd(b) : fmt::count(b)};
      for (const auto& r : report.runs) cells.push_back(fmt::percent(accuracy_on_curve(curve_of(r, kind), b), 0));
      t.rows.push_back(std::move(cells));
    }
    s.tables.push_back(std::move(t));
  }
  if (s.tables.empty()) s.paragraphs.push_back("No run has a solved task: every curve is flat at 0.");
  return s;
}

std::vector<Section> portability_sections(const Report& report) {
  std::vector<Section> out;
  for (size_t k = 0; k < report.portability.size(); ++k) {
    const PortabilityGroup& g = report.portability[k];
    Section s{k ? "portability-" + std::to_string(k + 1) : "portability", "Portability: " + g.configuration, {}, {}};
    s.paragraphs.push_back("Reference platform " + g.reference + "; " + std::to_string(g.tasks.size()) +
                           " task(s) run on every platform; solved on all platforms: " + std::to_string(g.solved_on_all.solved) + "/" +
                           std::to_string(g.solved_on_all.common) + " (" + fmt::percent(g.solved_on_all.rate) +
                           "); mean performance portability: " + fmt::number(g.mean_portability, 3) + ".");
    TextTable p;
    p.header = {"platform", "runs", "accuracy", "gap vs " + g.reference};
    p.numeric = {false, false, true, true};
    for (size_t i = 0; i < g.platforms.size(); ++i)
      p.rows.push_back({g.platforms[i], join(g.runs[i], ", "), fmt::percent(g.accuracy[i]), i == 0 ? "reference" : fmt::points(g.gap_points[i])});
    s.tables.push_back(std::move(p));
    TextTable t;
    t.header.push_back("task");
    for (const auto& pl : g.platforms) t.header.push_back(pl);
    t.header.push_back("perf. portability");
    t.numeric = numeric_after_first(t.header.size());
    for (size_t i = 0; i < g.tasks.size(); ++i) {
      std::vector<std::string> cells = {g.tasks[i]};
      for (const auto& c : g.cells[i]) cells.push_back(!c.solved ? "failed" : c.speedup ? fmt::speedup(c.speedup) : "solved");
      cells.push_back(fmt::number(g.portability[i], 3));
      t.rows.push_back(std::move(cells));
    }
    s.tables.push_back(std::move(t));
    out.push_back(std::move(s));
  }
  return out;
}

Section tasks_section(const Report& report) {
  Section s{"tasks", "Tasks", {}, {}};
  TextTable t;
  t.header.push_back("task");
  for (const auto& r : report.runs) t.header.push_back(r.label);
  t.numeric = std::vector<bool>(t.header.size(), false);
  std::map<std::string, std::vector<std::string>> rows;
  for (size_t i = 0; i < report.runs.size(); ++i)
    for (const auto& task : report.runs[i].tasks) {
      auto& cells = rows[task.task];
      cells.resize(report.runs.size(), "-");
      cells[i] = task_cell(report.runs[i].run, task);
    }
  for (auto& [task, cells] : rows) {
    std::vector<std::string> row = {task};
    row.insert(row.end(), cells.begin(), cells.end());
    t.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(t));
  return s;
}

// Cost and time per task: what each task of each run spent, with the time
// split by stage (the per-task counterpart of the summary's totals).
Section task_costs_section(const Report& report) {
  Section s{"task-costs", "Cost and time per task", {}, {}};
  s.paragraphs.push_back("Every attempt of the task summed: tokens (input / output), dollars, LLM and tool time split by stage, "
                         "iterations, and the iteration of the first success.");
  TextTable t;
  t.header = {"task", "run", "result", "tokens", "input / output", "dollars", "time", "LLM", "lint", "compile", "run", "profile",
              "other", "iterations", "first success"};
  t.numeric = {false, false, false, true, false, true, true, true, true, true, true, true, true, true, true};
  // (run, task) index pairs: a task's rows together, its runs in report order.
  std::vector<std::pair<size_t, size_t>> order;
  for (size_t i = 0; i < report.runs.size(); ++i)
    for (size_t k = 0; k < report.runs[i].tasks.size(); ++k) order.emplace_back(i, k);
  auto task_of = [&](const std::pair<size_t, size_t>& at) -> const std::string& { return report.runs[at.first].tasks[at.second].task; };
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) { return task_of(a) < task_of(b); });
  for (const auto& [run, task] : order) {
    const RunReport& r = report.runs[run];
    const TaskResult& x = r.tasks[task];
    t.rows.push_back({x.task, r.label, task_cell(r.run, x), fmt::count(static_cast<double>(x.tokens.total())),
                      fmt::count(static_cast<double>(x.tokens.input)) + " / " + fmt::count(static_cast<double>(x.tokens.output)),
                      fmt::usd(x.usd), fmt::seconds(x.seconds), fmt::seconds(x.time.llm), fmt::seconds(x.time.lint),
                      fmt::seconds(x.time.compile), fmt::seconds(x.time.run), fmt::seconds(x.time.profile), fmt::seconds(x.time.other),
                      std::to_string(x.iterations), x.first_success ? std::to_string(*x.first_success) : "-"});
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

std::string task_cell(const Run& run, const TaskResult& task) {
  if (task.solved) {
    std::string cell = "solved";
    if (task.speedup) cell += " " + fmt::speedup(task.speedup);
    if (task.first_success) cell += " (it. " + std::to_string(*task.first_success) + ")";
    return cell;
  }
  if (task.shown_attempt < 0) return "-";
  const Attempt& a = run.attempts[static_cast<size_t>(task.shown_attempt)];
  std::string last;
  int last_index = -1;
  for (const auto& it : a.iterations)
    if (it.finished && it.index > last_index) {
      last_index = it.index;
      last = it.outcome;
    }
  std::string cell = a.status;
  if (!last.empty() && last != a.status) cell += ": " + last;
  return cell;
}

std::vector<double> budget_grid(const Report& report, BudgetKind kind) {
  double lo = 0, hi = 0;
  for (const auto& r : report.runs)
    for (const auto& p : curve_of(r, kind)) {
      if (p.budget <= 0) continue;
      lo = lo == 0 ? p.budget : std::min(lo, p.budget);
      hi = std::max(hi, p.budget);
    }
  std::vector<double> grid;
  if (hi <= 0) return grid;
  if (kind == BudgetKind::Iterations) {
    for (int i = 1; i <= static_cast<int>(std::ceil(hi)); ++i) grid.push_back(i);
    return grid;
  }
  // A 1-2-5 series from the last step at or below the cheapest success to the
  // first step at or past the dearest.
  std::vector<double> series;
  for (double decade = std::pow(10.0, std::floor(std::log10(lo))); series.empty() || series.back() < hi; decade *= 10)
    for (double m : {1.0, 2.0, 5.0})
      if (series.empty() || series.back() < hi) series.push_back(m * decade);
  size_t start = 0;
  for (size_t i = 0; i < series.size(); ++i)
    if (series[i] <= lo) start = i;
  grid.assign(series.begin() + static_cast<std::ptrdiff_t>(start), series.end());
  return grid;
}

// Where the evaluations ran (executor, partition, node) and the tries of
// evaluation jobs that ended without an answer; only for runs that used an
// executor other than this machine, or had such tries.
Section placement_section(const Report& report) {
  Section s{"placement", "Where evaluations ran", {}, {}};
  TextTable t;
  t.header = {"run", "executor", "partition", "node", "evaluations", "retried", "evaluation time"};
  t.numeric = {false, false, false, false, true, true, true};
  TextTable failed;
  failed.caption = "tries that ended without an answer (each was queued again, or the evaluation gave up)";
  failed.header = {"run", "evaluation", "try", "job", "partition", "node", "reason"};
  failed.numeric = {false, false, true, false, false, false, false};
  for (const auto& r : report.runs) {
    struct Where {
      int evaluations = 0, retried = 0;
      double seconds = 0;
    };
    std::map<std::tuple<std::string, std::string, std::string>, Where> by_place;
    for (const auto& a : r.run.attempts)
      for (const auto& it : a.iterations)
        for (const auto& e : it.evaluations) {
          Where& w = by_place[{e.executor, e.partition, e.node}];
          ++w.evaluations;
          w.retried += e.tries > 1;
          w.seconds += e.total_seconds;
        }
    for (const auto& [place, w] : by_place) {
      const auto& [executor, partition, node] = place;
      t.rows.push_back({r.label, executor, partition.empty() ? "-" : partition, node.empty() ? "-" : node,
                        std::to_string(w.evaluations), std::to_string(w.retried), fmt::seconds(w.seconds)});
    }
    for (const auto& f : r.run.failed_tries)
      failed.rows.push_back({r.label, f.key, std::to_string(f.try_index), f.job_id.empty() ? "-" : f.job_id,
                             f.partition.empty() ? "-" : f.partition, f.node.empty() ? "-" : f.node, f.reason});
  }
  s.tables.push_back(std::move(t));
  if (!failed.rows.empty()) s.tables.push_back(std::move(failed));
  return s;
}

bool ran_elsewhere(const Report& report) {
  for (const auto& r : report.runs) {
    if (!r.run.failed_tries.empty()) return true;
    for (const auto& a : r.run.attempts)
      for (const auto& it : a.iterations)
        for (const auto& e : it.evaluations)
          if (e.executor != "local") return true;
  }
  return false;
}

std::vector<Section> report_sections(const Report& report) {
  std::vector<Section> out;
  out.push_back(runs_section(report));
  out.push_back(summary_section(report));
  if (report.runs.size() > 1) out.push_back(differences_section(report));
  out.push_back(sources_section(report));
  out.push_back(budget_section(report));
  for (auto& s : portability_sections(report)) out.push_back(std::move(s));
  out.push_back(tasks_section(report));
  out.push_back(task_costs_section(report));
  if (ran_elsewhere(report)) out.push_back(placement_section(report));
  return out;
}

}  // namespace kgb::report
