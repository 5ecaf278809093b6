#include "kgb/agent/tools.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "kgb/process.h"

namespace kgb::agent {

using json = nlohmann::json;

std::string_view tool_name(ToolKind kind) {
  switch (kind) {
    case ToolKind::Lint: return "lint";
    case ToolKind::Compile: return "compile";
    case ToolKind::Run: return "run";
    case ToolKind::Profile: return "profile";
    case ToolKind::Submit: return "submit";
  }
  return "unknown";
}

std::optional<ToolKind> tool_from_name(std::string_view name) {
  for (ToolKind k : {ToolKind::Lint, ToolKind::Compile, ToolKind::Run, ToolKind::Profile, ToolKind::Submit})
    if (tool_name(k) == name) return k;
  return std::nullopt;
}

json ToolResult::to_json() const {
  return {{"tool", tool_name(kind)}, {"ok", ok},           {"correct", correct}, {"outcome", outcome},
          {"stage", stage},          {"summary", summary}, {"speedup", speedup}, {"data", data},
          {"seconds", seconds},      {"kernel", kernel}};
}

ToolResult ToolResult::from_json(const json& j) {
  ToolResult r;
  r.kind = tool_from_name(j.value("tool", "run")).value_or(ToolKind::Run);
  r.ok = j.value("ok", false);
  r.correct = j.value("correct", false);
  r.outcome = j.value("outcome", "");
  r.stage = j.value("stage", "");
  r.summary = j.value("summary", "");
  r.speedup = j.value("speedup", 0.0);
  if (j.contains("data")) r.data = j["data"];
  r.seconds = j.value("seconds", 0.0);
  r.kernel = j.value("kernel", "");
  return r;
}

namespace {

class HarnessTools final : public ToolBackend {
 public:
  bool lint_available() const override { return static_cast<bool>(default_eval_hooks().lint); }
  LintOutcome lint(const std::string& source, const Task& task, const Platform& platform) override {
    const auto& hooks = default_eval_hooks();
    if (!hooks.lint) return {};
    return hooks.lint(source, task, platform);
  }
  CompileOutput compile(const std::string& source, const Task& task, const Platform& platform) override {
    TempDir dir("kgb-compile");
    return compile_candidate(task, platform, source, dir.path(), default_eval_hooks());
  }
  Verdict evaluate(const std::string& source, const Task& task, const Platform& platform,
                   const EvalOptions& options) override {
    if (options.reference_cache) return kgb::evaluate(task, platform, source, options);
    EvalOptions shared = options;
    shared.reference_cache = references_;
    return kgb::evaluate(task, platform, source, shared);
  }
  nlohmann::json stats() const override {
    const auto s = references_->stats();
    return {{"reference_cache", {{"hits", s.hits}, {"misses", s.misses}, {"bytes", s.bytes}, {"entries", s.entries}}}};
  }
  explicit HarnessTools(uint64_t reference_cache_bytes)
      : references_(std::make_shared<ReferenceCache>(reference_cache_bytes)) {}

 private:
  std::shared_ptr<ReferenceCache> references_;
};

std::string base_name(const std::string& file) {
  const auto slash = file.find_last_of('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

json diagnostic_json(const Diagnostic& d) {
  return {{"file", base_name(d.file)}, {"line", d.line},         {"column", d.column},
          {"severity", d.severity},   {"message", d.message}, {"excerpt", d.excerpt}};
}

json finding_json(const Finding& f) {
  return {{"rule", f.rule}, {"severity", f.severity}, {"layer", f.layer}, {"message", f.message}, {"location", base_name(f.location)}};
}

bool is_error(const Diagnostic& d) { return d.severity == "error" || d.severity == "fatal" || d.severity == "fatal error"; }

// Errors first (in source order), then warnings; notes only when nothing else.
void put_diagnostics(json& data, const std::vector<Diagnostic>& all, int limit) {
  std::vector<const Diagnostic*> errors, warnings, notes;
  for (const auto& d : all) (is_error(d) ? errors : d.severity == "warning" ? warnings : notes).push_back(&d);
  std::vector<const Diagnostic*> ordered = errors;
  ordered.insert(ordered.end(), warnings.begin(), warnings.end());
  if (ordered.empty()) ordered = notes;
  json list = json::array();
  for (size_t i = 0; i < ordered.size() && static_cast<int>(i) < limit; ++i) list.push_back(diagnostic_json(*ordered[i]));
  data["errors"] = errors.size();
  data["warnings"] = warnings.size();
  data["diagnostics"] = list;
  data["diagnostics_total"] = ordered.size();
}

void put_findings(json& data, const std::vector<Finding>& all, int limit) {
  std::vector<const Finding*> ordered;
  for (const auto& f : all)
    if (f.severity == "reject") ordered.push_back(&f);
  for (const auto& f : all)
    if (f.severity != "reject") ordered.push_back(&f);
  json list = json::array();
  for (size_t i = 0; i < ordered.size() && static_cast<int>(i) < limit; ++i) list.push_back(finding_json(*ordered[i]));
  data["findings"] = list;
  data["findings_total"] = ordered.size();
}

std::string cap(const std::string& s, size_t limit) {
  if (s.size() <= limit) return s;
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "[... " + std::to_string(s.size() - cut) + " more characters]";
}

std::string number(double v) {
  std::ostringstream os;
  os << std::setprecision(4) << v;
  return os.str();
}

}  // namespace

std::unique_ptr<ToolBackend> make_harness_tools(uint64_t reference_cache_bytes) {
  return std::make_unique<HarnessTools>(reference_cache_bytes);
}

EvalOptions eval_options_for(ToolKind kind, const EvaluationSettings& s, uint64_t seed) {
  EvalOptions o;
  o.lint = s.lint;
  o.time = s.time && (kind == ToolKind::Profile || kind == ToolKind::Submit);
  o.baseline = s.baseline;
  o.seeds_per_case = s.seeds_per_case;
  o.seed = seed;
  o.check_timeout_seconds = s.check_timeout_seconds;
  o.time_budget_seconds = s.time_budget_seconds;
  o.timing_pairs = s.timing_pairs;
  o.case_filter = s.cases;
  return o;
}

json eval_options_json(const EvalOptions& o) {
  return {{"lint", o.lint},
          {"time", o.time},
          {"baseline", o.baseline},
          {"seeds_per_case", o.seeds_per_case},
          {"check_timeout_seconds", o.check_timeout_seconds},
          {"time_budget_seconds", o.time_budget_seconds},
          {"timing_pairs", o.timing_pairs},
          {"case_filter", o.case_filter}};
}

ToolResult run_tool(ToolBackend& tools, ToolKind kind, const std::string& source, const Task& task,
                    const Platform& platform, const EvalOptions& options, const FeedbackSettings& limits) {
  try {
    switch (kind) {
      case ToolKind::Lint: {
        const bool available = tools.lint_available();
        return lint_result(available ? tools.lint(source, task, platform) : LintOutcome{}, available, limits);
      }
      case ToolKind::Compile: return compile_result(tools.compile(source, task, platform), limits);
      default: return verdict_result(kind, tools.evaluate(source, task, platform, options), limits);
    }
  } catch (const std::exception& e) {
    Verdict v;
    v.task = task.id;
    v.platform = platform.name;
    v.outcome = Outcome::InfraError;
    v.summary = std::string("the tool failed: ") + e.what();
    return verdict_result(kind, v, limits);
  }
}

jobs::JobKind job_kind_for(ToolKind kind) {
  switch (kind) {
    case ToolKind::Lint: return jobs::JobKind::Lint;
    case ToolKind::Compile: return jobs::JobKind::Compile;
    default: return jobs::JobKind::Evaluate;
  }
}

ToolResult reply_result(ToolKind kind, const jobs::JobReply& reply, const Task& task, const Platform& platform,
                        const FeedbackSettings& limits) {
  if (reply.completed) {
    try {
      switch (kind) {
        case ToolKind::Lint: return lint_result(jobs::lint_from_json(reply.payload), reply.payload.value("available", false), limits);
        case ToolKind::Compile: return compile_result(jobs::compile_from_json(reply.payload), limits);
        default: {
          Verdict v;
          from_json(reply.payload, v);
          return verdict_result(kind, v, limits);
        }
      }
    } catch (const std::exception& e) {
      Verdict v;
      v.task = task.id;
      v.platform = platform.name;
      v.outcome = Outcome::InfraError;
      v.summary = std::string("the reply of the evaluation job could not be read: ") + e.what();
      return verdict_result(kind, v, limits);
    }
  }
  Verdict v;
  v.task = task.id;
  v.platform = platform.name;
  v.outcome = Outcome::InfraError;
  v.summary = "the evaluation job did not complete: " + reply.error;
  return verdict_result(kind, v, limits);
}

ToolResult lint_result(const LintOutcome& outcome, bool available, const FeedbackSettings& limits) {
  ToolResult r;
  r.kind = ToolKind::Lint;
  r.stage = "lint";
  if (!available) {
    r.ok = true;
    r.outcome = "unavailable";
    r.summary = "lint is not built into this kgb; compile and run still check the kernel";
    r.data = {{"outcome", r.outcome}};
    return r;
  }
  const bool rejected =
      std::any_of(outcome.findings.begin(), outcome.findings.end(), [](const Finding& f) { return f.severity == "reject"; });
  const bool parse_errors = std::any_of(outcome.diagnostics.begin(), outcome.diagnostics.end(), is_error);
  r.ok = !rejected && outcome.parse_ok;
  r.outcome = rejected ? "rejected" : parse_errors || !outcome.parse_ok ? "parse-errors" : "clean";
  if (rejected) {
    const auto f = std::find_if(outcome.findings.begin(), outcome.findings.end(), [](const Finding& x) { return x.severity == "reject"; });
    r.summary = f->rule + ": " + f->message;
  } else if (parse_errors) {
    const auto d = std::find_if(outcome.diagnostics.begin(), outcome.diagnostics.end(), is_error);
    r.summary = "the source does not parse: " + d->message;
  } else {
    r.summary = outcome.findings.empty() ? "no findings" : std::to_string(outcome.findings.size()) + " warning(s)";
  }
  r.data = {{"outcome", r.outcome}, {"parse_ok", outcome.parse_ok}};
  put_findings(r.data, outcome.findings, limits.max_findings);
  put_diagnostics(r.data, outcome.diagnostics, limits.max_diagnostics);
  return r;
}

ToolResult compile_result(const CompileOutput& c, const FeedbackSettings& limits) {
  ToolResult r;
  r.kind = ToolKind::Compile;
  r.stage = "compile";
  r.seconds = c.seconds;
  const bool symbol_reject =
      std::any_of(c.findings.begin(), c.findings.end(), [](const Finding& f) { return f.severity == "reject"; });
  if (!c.infra_error.empty()) {
    r.outcome = "infra-error";
    r.summary = "toolchain problem: " + c.infra_error;
  } else if (!c.ok) {
    r.outcome = "compile-error";
    const auto d = std::find_if(c.diagnostics.begin(), c.diagnostics.end(), is_error);
    r.summary = d == c.diagnostics.end() ? "compilation failed" : base_name(d->file) + ":" + std::to_string(d->line) + ": " + d->message;
  } else if (symbol_reject) {
    r.outcome = "symbol-rejected";
    const auto f = std::find_if(c.findings.begin(), c.findings.end(), [](const Finding& x) { return x.severity == "reject"; });
    r.summary = f->rule + ": " + f->message;
  } else {
    r.ok = true;
    r.outcome = "compiled";
    r.summary = "compiled and linked";
  }
  r.data = {{"outcome", r.outcome}, {"compile_seconds", c.seconds}};
  put_diagnostics(r.data, c.diagnostics, limits.max_diagnostics);
  put_findings(r.data, c.findings, limits.max_findings);
  if (!c.ok && c.diagnostics.empty()) r.data["log"] = cap(c.log, static_cast<size_t>(limits.max_line_chars) * 4);
  return r;
}

ToolResult verdict_result(ToolKind kind, const Verdict& v, const FeedbackSettings& limits) {
  ToolResult r;
  r.kind = kind;
  r.outcome = std::string(outcome_name(v.outcome));
  r.stage = std::string(stage_name(v.stage));
  r.summary = v.summary;
  r.correct = v.passed();
  r.speedup = v.speedup;
  r.ok = v.passed() && (kind == ToolKind::Run || !v.timings.empty() || v.speedup == 0);
  r.seconds = v.total_seconds;
  r.verdict = v;
  json& d = r.data;
  d = {{"outcome", r.outcome}, {"stage", r.stage}, {"summary", v.summary}};
  put_diagnostics(d, v.diagnostics, limits.max_diagnostics);
  put_findings(d, v.findings, limits.max_findings);
  int passed = 0;
  json failed = json::array();
  int failed_total = 0;
  for (const auto& c : v.cases) {
    if (c.passed) {
      ++passed;
      continue;
    }
    ++failed_total;
    if (static_cast<int>(failed.size()) >= limits.max_cases) continue;
    json fc = {{"case", c.name},           {"dtype", c.dtype},         {"seed", c.seed_index},
               {"status", c.status},       {"max_abs_error", c.max_abs_error}, {"max_rel_error", c.max_rel_error},
               {"mismatches", c.mismatches}, {"checked", c.checked},   {"output", c.output},
               {"first_bad_index", c.first_bad_index}, {"expected", c.expected}, {"got", c.got},
               {"message", cap(c.message, static_cast<size_t>(limits.max_line_chars))}};
    failed.push_back(fc);
  }
  d["cases_total"] = v.cases.size();
  d["cases_passed"] = passed;
  d["failed_cases"] = failed;
  d["failed_cases_total"] = failed_total;
  if (!v.timings.empty()) {
    json timings = json::array();
    for (const auto& t : v.timings) {
      json tj = {{"case", t.name}, {"dtype", t.dtype}, {"median_us", t.candidate.median_us}, {"speedup", t.speedup},
                 {"roofline_fraction", t.roofline_fraction}, {"floor_us", t.floor_us}};
      if (t.baseline) {
        tj["baseline_us"] = t.baseline->median_us;
        tj["baseline"] = t.baseline_kind;
      }
      if (!t.bound.empty()) {
        tj["bandwidth_fraction"] = t.bandwidth_fraction;
        tj["compute_fraction"] = t.compute_fraction;
        tj["bound"] = t.bound;
      }
      timings.push_back(tj);
    }
    d["timings"] = timings;
    d["speedup"] = v.speedup;
    double roof = 0;
    int n = 0;
    for (const auto& t : v.timings)
      if (t.roofline_fraction > 0) {
        roof += std::log(t.roofline_fraction);
        ++n;
      }
    if (n) d["roofline_fraction"] = std::exp(roof / n);
  }
  if (v.outcome == Outcome::RuntimeError || v.outcome == Outcome::Timeout) {
    if (!v.child_stderr.empty()) d["stderr"] = cap(v.child_stderr, static_cast<size_t>(limits.max_line_chars) * 2);
  }
  return r;
}

std::string format_tool_result(const ToolResult& r, const FeedbackSettings& limits) {
  const size_t line_cap = static_cast<size_t>(std::max<int64_t>(limits.max_line_chars, 40));
  std::vector<std::string> lines;
  auto add = [&](const std::string& key, const std::string& value) {
    std::string flat;
    for (char c : value) flat += (c == '\n' || c == '\r') ? ' ' : c;
    lines.push_back(cap(key + ": " + flat, line_cap));
  };
  const json& d = r.data;
  add("tool", std::string(tool_name(r.kind)));
  add("outcome", r.outcome);
  if (!r.stage.empty() && r.kind != ToolKind::Lint && r.kind != ToolKind::Compile) add("stage", r.stage);
  if (!r.summary.empty()) add("summary", r.summary);

  if (d.contains("errors") && (d.value("errors", 0) > 0 || d.value("warnings", 0) > 0))
    add("diagnostics", std::to_string(d.value("errors", 0)) + " error(s), " + std::to_string(d.value("warnings", 0)) + " warning(s)");
  if (d.contains("diagnostics")) {
    for (const auto& x : d["diagnostics"]) {
      std::string where = x.value("file", "");
      if (x.value("line", 0) > 0) where += ":" + std::to_string(x.value("line", 0));
      if (x.value("column", 0) > 0) where += ":" + std::to_string(x.value("column", 0));
      add(x.value("severity", "error"), (where.empty() ? "" : where + ": ") + x.value("message", ""));
      const std::string excerpt = x.value("excerpt", "");
      if (!excerpt.empty()) lines.push_back(cap("  | " + excerpt, line_cap));
    }
    const int more = d.value("diagnostics_total", 0) - static_cast<int>(d["diagnostics"].size());
    if (more > 0) lines.push_back("[" + std::to_string(more) + " more diagnostic(s) not shown]");
  }
  if (d.contains("findings")) {
    for (const auto& f : d["findings"])
      add("finding", f.value("rule", "") + " (" + f.value("severity", "") + ")" +
                         (f.value("location", "").empty() ? "" : " at " + f.value("location", "")) + ": " + f.value("message", ""));
    const int more = d.value("findings_total", 0) - static_cast<int>(d["findings"].size());
    if (more > 0) lines.push_back("[" + std::to_string(more) + " more finding(s) not shown]");
  }
  if (d.contains("log")) add("compiler output", d.value("log", ""));
  if (d.value("cases_total", 0) > 0)
    add("cases", std::to_string(d.value("cases_passed", 0)) + " of " + std::to_string(d.value("cases_total", 0)) + " passed");
  if (d.contains("failed_cases")) {
    for (const auto& c : d["failed_cases"]) {
      std::ostringstream os;
      os << c.value("case", "") << " " << c.value("dtype", "") << " seed " << c.value("seed", 0) << ": " << c.value("status", "");
      if (c.value("checked", int64_t{0}) > 0)
        os << ", " << c.value("mismatches", int64_t{0}) << " of " << c.value("checked", int64_t{0}) << " elements wrong";
      if (c.value("max_abs_error", 0.0) > 0 || c.value("max_rel_error", 0.0) > 0)
        os << ", max abs error " << number(c.value("max_abs_error", 0.0)) << ", max rel error " << number(c.value("max_rel_error", 0.0));
      if (c.contains("first_bad_index") && !c["first_bad_index"].empty()) {
        os << ", first mismatch " << c.value("output", "") << "[";
        bool first = true;
        for (const auto& i : c["first_bad_index"]) {
          os << (first ? "" : ", ") << i.get<int64_t>();
          first = false;
        }
        os << "]: expected " << c.value("expected", "") << ", got " << c.value("got", "");
      } else if (!c.value("message", "").empty()) {
        os << ": " << c.value("message", "");
      }
      add("failed case", os.str());
    }
    const int more = d.value("failed_cases_total", 0) - static_cast<int>(d["failed_cases"].size());
    if (more > 0) lines.push_back("[" + std::to_string(more) + " more failed case(s) not shown]");
  }
  if (d.contains("timings")) {
    add("speedup", number(d.value("speedup", 0.0)) + "x (geometric mean over " + std::to_string(d["timings"].size()) +
                       " performance case(s))");
    if (d.contains("roofline_fraction"))
      add("roofline", number(100.0 * d.value("roofline_fraction", 0.0)) + "% of the roofline floor (geometric mean)");
    int shown = 0;
    for (const auto& t : d["timings"]) {
      if (shown++ >= std::max(limits.max_cases, 1) * 2) {
        lines.push_back("[" + std::to_string(d["timings"].size() - static_cast<size_t>(shown - 1)) + " more timing(s) not shown]");
        break;
      }
      std::ostringstream os;
      os << t.value("case", "") << " " << t.value("dtype", "") << ": " << number(t.value("median_us", 0.0)) << " us";
      if (t.contains("baseline_us"))
        os << " (baseline " << number(t.value("baseline_us", 0.0)) << " us, " << number(t.value("speedup", 0.0)) << "x)";
      if (t.value("roofline_fraction", 0.0) > 0) os << ", " << number(100.0 * t.value("roofline_fraction", 0.0)) << "% of roofline";
      if (t.contains("bound"))
        os << ", " << number(100.0 * t.value("bandwidth_fraction", 0.0)) << "% of peak bandwidth, "
           << number(100.0 * t.value("compute_fraction", 0.0)) << "% of peak compute (" << t.value("bound", "") << "-bound)";
      add("timing", os.str());
    }
  }
  if (d.contains("profiler") && d["profiler"].contains("summary"))
    for (const auto& line : d["profiler"]["summary"])
      if (line.is_string()) add("profile", line.get<std::string>());
  if (d.contains("stderr")) add("stderr", d.value("stderr", ""));

  std::string out;
  const size_t max_chars = static_cast<size_t>(limits.max_chars);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (out.size() + lines[i].size() + 1 > max_chars) {
      size_t left = 0;
      for (size_t k = i; k < lines.size(); ++k) left += lines[k].size() + 1;
      out += "[feedback truncated: " + std::to_string(lines.size() - i) + " more line(s), " + std::to_string(left) +
             " characters]\n";
      break;
    }
    out += lines[i] + "\n";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

std::string feedback_template_for(const ToolResult& r) {
  if (r.kind == ToolKind::Lint) return "feedback/lint";
  if (r.kind == ToolKind::Compile) return r.outcome == "infra-error" ? "feedback/infra" : "feedback/compile";
  if (r.outcome == "passed") return "feedback/passed";
  if (r.outcome == "lint-rejected") return "feedback/lint";
  if (r.outcome == "compile-error") return "feedback/compile";
  if (r.outcome == "wrong-result") return "feedback/check";
  if (r.outcome == "runtime-error" || r.outcome == "timeout") return "feedback/runtime";
  if (r.outcome == "cheat-detected") return "feedback/cheat";
  return "feedback/infra";
}

std::string error_signature(const ToolResult& r) {
  if (r.ok && r.correct) return {};
  const json& d = r.data;
  std::string sig = r.outcome;
  if (d.contains("diagnostics") && !d["diagnostics"].empty()) {
    const auto& x = d["diagnostics"][0];
    if (x.value("severity", "") != "warning") return sig + ": " + x.value("message", "");
  }
  if (d.contains("findings") && !d["findings"].empty()) return sig + ": " + d["findings"][0].value("rule", "");
  if (d.contains("failed_cases") && !d["failed_cases"].empty()) {
    const auto& c = d["failed_cases"][0];
    return sig + ": " + c.value("status", "") + " in " + c.value("output", "");
  }
  return sig;
}

}  // namespace kgb::agent
