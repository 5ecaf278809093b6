// The JSON renderer: every figure of the report as plain data (null where a
// metric is undefined), for pandas and other tools.
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "format.h"
#include "kgb/report/definitions.h"
#include "kgb/report/render.h"

namespace kgb::report {

namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

json per_unit_json(const PerUnit& u) { return {{"total", u.total}, {"per_task", opt(u.per_task)}, {"per_success", opt(u.per_success)}}; }

json time_json(const TimeSplit& t) {
  return {{"llm", t.llm}, {"lint", t.lint}, {"compile", t.compile}, {"run", t.run}, {"profile", t.profile}, {"other", t.other}, {"total", t.total()}};
}

json tokens_json(const TokenUse& t) {
  return {{"input", t.input},   {"cached_input", t.cached_input}, {"cache_write", t.cache_write},
          {"output", t.output}, {"reasoning", t.reasoning},       {"total", t.total()}};
}

json curve_json(const std::vector<CurvePoint>& curve) {
  json out = json::array();
  for (const auto& p : curve) out.push_back({{"budget", p.budget}, {"accuracy", p.accuracy}});
  return out;
}

json task_json(const TaskResult& t) {
  json cases = json::array();
  for (const auto& c : t.cases)
    cases.push_back({{"name", c.name}, {"dtype", c.dtype}, {"candidate_us", c.candidate_us}, {"baseline_us", opt(c.baseline_us)},
                     {"baseline", c.baseline_kind}, {"speedup", opt(c.speedup)},
                     {"speedup_interval", c.speedup_high ? json::array({*c.speedup_low, *c.speedup_high}) : json(nullptr)},
                     {"unstable", c.unstable}, {"excluded", c.excluded}});
  return {{"task", t.task},
          {"source", t.source},
          {"solved", t.solved},
          {"attempts", t.attempts},
          {"solved_attempts", t.solved_attempts},
          {"speedup", opt(t.speedup)},
          {"first_success_iteration", opt(t.first_success)},
          {"samples", t.samples},
          {"correct_samples", t.correct_samples},
          {"iterations", t.iterations},
          {"tokens", tokens_json(t.tokens)},
          {"dollars", t.usd},
          {"seconds", t.seconds},
          {"time", time_json(t.time)},
          {"cases", cases}};
}

json run_json(const RunReport& r) {
  json sources = json::array();
  for (const auto& s : r.sources) sources.push_back({{"source", s.source}, {"tasks", s.tasks}, {"solved", s.solved}, {"accuracy", s.accuracy}});
  json pass = json::object();
  for (const auto& p : r.pass_at_k) pass[std::to_string(p.k)] = opt(p.value);
  json rounds = json::object();
  for (const auto& p : r.any_of_rounds) rounds[std::to_string(p.k)] = p.value;
  json fast = json::object();
  for (const auto& f : r.fast_p) fast[fmt::fixed(f.p, 1)] = f.value;
  json tasks = json::array();
  for (const auto& t : r.tasks) tasks.push_back(task_json(t));
  json tokens = tokens_json(r.run.tokens);
  tokens["per_task"] = opt(r.tokens.per_task);
  tokens["per_success"] = opt(r.tokens.per_success);
  // Where the evaluations ran: counts per (executor, partition, node), and the
  // tries that ended without an answer.
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<int, int>> places;
  for (const auto& a : r.run.attempts)
    for (const auto& it : a.iterations)
      for (const auto& e : it.evaluations) {
        auto& [count, retried] = places[{e.executor, e.partition, e.node}];
        ++count;
        retried += e.tries > 1;
      }
  json placement = json::array();
  for (const auto& [place, counts] : places)
    placement.push_back({{"executor", std::get<0>(place)}, {"partition", std::get<1>(place)}, {"node", std::get<2>(place)},
                         {"evaluations", counts.first}, {"retried", counts.second}});
  json failed_tries = json::array();
  for (const auto& f : r.run.failed_tries)
    failed_tries.push_back({{"evaluation", f.key}, {"try", f.try_index}, {"job_id", f.job_id}, {"partition", f.partition},
                            {"node", f.node}, {"reason", f.reason}});
  json time = time_json(r.time);
  time["per_task"] = opt(r.seconds.per_task);
  time["per_success"] = opt(r.seconds.per_success);
  return {{"id", r.run.id},
          {"status", r.run.status},
          {"policy", r.run.policy},
          {"provider", r.run.provider},
          {"model", r.run.model},
          {"platform", r.run.platform},
          {"samples", r.run.samples},
          {"created_at", r.run.created_at},
          {"git_revision", r.run.git_revision},
          {"tasks", r.tasks.size()},
          {"solved", r.solved},
          {"accuracy", r.accuracy},
          {"sources", sources},
          {"sample_unit", r.sample_unit},
          {"pass_at_k", pass},
          {"any_of_k_rounds", rounds},
          {"speedup", {{"geomean_solved", opt(r.geomean_solved)}, {"geomean_matched", opt(r.geomean_matched)}, {"timed_solved", r.timed_solved}}},
          {"fast_p", fast},
          {"tokens", tokens},
          {"llm_calls", r.run.llm_calls},
          {"llm_calls_usage_estimated", r.run.estimated_usage_calls},
          {"llm_calls_usage_missing", r.run.missing_usage_calls},
          {"llm_calls_usage_reported_by_agent", r.run.agent_usage_calls},
          {"dollars", per_unit_json(r.usd)},
          {"time", time},
          {"iterations",
           {{"total", r.iterations}, {"to_first_success_mean", opt(r.mean_iterations_to_success)},
            {"to_first_success_median", opt(r.median_iterations_to_success)}}},
          {"budget_curves", {{"tokens", curve_json(r.curve_tokens)}, {"dollars", curve_json(r.curve_usd)}, {"iterations", curve_json(r.curve_iterations)}}},
          {"placement", placement},
          {"failed_tries", failed_tries},
          {"task_results", tasks}};
}

json portability_json(const PortabilityGroup& g) {
  json tasks = json::array();
  for (size_t i = 0; i < g.tasks.size(); ++i) {
    json cells = json::object();
    for (size_t p = 0; p < g.platforms.size(); ++p)
      cells[g.platforms[p]] = {{"solved", g.cells[i][p].solved}, {"speedup", opt(g.cells[i][p].speedup)}};
    tasks.push_back({{"task", g.tasks[i]}, {"platforms", cells}, {"performance_portability", opt(g.portability[i])}});
  }
  json platforms = json::array();
  for (size_t p = 0; p < g.platforms.size(); ++p)
    platforms.push_back({{"platform", g.platforms[p]}, {"runs", g.runs[p]}, {"accuracy", g.accuracy[p]}, {"gap_points", g.gap_points[p]}});
  return {{"configuration", g.configuration},
          {"reference", g.reference},
          {"platforms", platforms},
          {"common_tasks", g.tasks.size()},
          {"solved_on_all", {{"solved", g.solved_on_all.solved}, {"common", g.solved_on_all.common}, {"rate", g.solved_on_all.rate}}},
          {"mean_performance_portability", opt(g.mean_portability)},
          {"tasks", tasks}};
}

}  // namespace

std::optional<Format> format_from_name(std::string_view name) {
  if (name == "table") return Format::Table;
  if (name == "markdown" || name == "md") return Format::Markdown;
  if (name == "json") return Format::Json;
  if (name == "html") return Format::Html;
  return std::nullopt;
}

std::string render_json(const Report& report) {
  json runs = json::array();
  for (const auto& r : report.runs) runs.push_back(run_json(r));
  json diffs = json::array();
  for (const auto& d : report.differences)
    diffs.push_back({{"run", report.runs[d.run].run.id},
                     {"against", report.runs[d.against].run.id},
                     {"accuracy_points", d.accuracy_points},
                     {"geomean_ratio", opt(d.geomean_ratio)},
                     {"matched_ratio", opt(d.matched_ratio)},
                     {"tokens_per_success_ratio", opt(d.tokens_per_success_ratio)},
                     {"dollars_delta", d.usd_delta},
                     {"solved_only_by_run", d.gained},
                     {"solved_only_by_against", d.lost},
                     {"matched_faster", d.faster},
                     {"matched_slower", d.slower}});
  json portability = json::array();
  for (const auto& g : report.portability) portability.push_back(portability_json(g));
  json definitions = json::object();
  for (const auto& d : metric_definitions()) definitions[d.name] = d.text;
  json out = {{"generated_at", report.generated_at}, {"store", report.store_file},    {"runs", runs},
              {"matched_tasks", report.matched},     {"differences", diffs},          {"portability", portability},
              {"definitions", definitions}};
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string render(const Report& report, Format format) {
  switch (format) {
    case Format::Table: return render_table(report);
    case Format::Markdown: return render_markdown(report);
    case Format::Json: return render_json(report);
    case Format::Html: return render_html(report);
  }
  return render_table(report);
}

}  // namespace kgb::report
