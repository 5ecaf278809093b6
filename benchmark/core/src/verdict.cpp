#include "kgb/verdict.h"

#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

namespace kgb {

using nlohmann::json;

std::string_view stage_name(Stage s) {
  switch (s) {
    case Stage::Lint: return "lint";
    case Stage::Compile: return "compile";
    case Stage::Check: return "check";
    case Stage::Time: return "time";
    case Stage::Done: return "done";
  }
  return "?";
}

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Passed: return "passed";
    case Outcome::LintRejected: return "lint-rejected";
    case Outcome::CompileError: return "compile-error";
    case Outcome::RuntimeError: return "runtime-error";
    case Outcome::Timeout: return "timeout";
    case Outcome::WrongResult: return "wrong-result";
    case Outcome::CheatDetected: return "cheat-detected";
    case Outcome::InfraError: return "infra-error";
  }
  return "?";
}

void to_json(json& j, const Diagnostic& d) {
  j = json{{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", d.severity}, {"message", d.message}};
  if (!d.excerpt.empty()) j["excerpt"] = d.excerpt;
}

void from_json(const json& j, Diagnostic& d) {
  d.file = j.value("file", "");
  d.line = j.value("line", 0);
  d.column = j.value("column", 0);
  d.severity = j.value("severity", "");
  d.message = j.value("message", "");
  d.excerpt = j.value("excerpt", "");
}

void to_json(json& j, const Finding& f) {
  j = json{{"rule", f.rule}, {"layer", f.layer}, {"severity", f.severity}, {"message", f.message}, {"location", f.location}};
}

void from_json(const json& j, Finding& f) {
  f.rule = j.value("rule", "");
  f.layer = j.value("layer", "");
  f.severity = j.value("severity", "");
  f.message = j.value("message", "");
  f.location = j.value("location", "");
}

void to_json(json& j, const CaseCheck& c) {
  j = json{{"name", c.name},       {"dtype", c.dtype},         {"seed_index", c.seed_index},
           {"passed", c.passed},   {"status", c.status},       {"max_abs_error", c.max_abs_error},
           {"max_rel_error", c.max_rel_error}, {"mismatches", c.mismatches}, {"checked", c.checked}};
  if (!c.passed) {
    j["output"] = c.output;
    j["first_bad_index"] = c.first_bad_index;
    j["expected"] = c.expected;
    j["got"] = c.got;
  }
  if (!c.message.empty()) j["message"] = c.message;
}

void from_json(const json& j, CaseCheck& c) {
  c.name = j.value("name", "");
  c.dtype = j.value("dtype", "");
  c.seed_index = j.value("seed_index", 0);
  c.passed = j.value("passed", false);
  c.status = j.value("status", "");
  c.max_abs_error = j.value("max_abs_error", 0.0);
  c.max_rel_error = j.value("max_rel_error", 0.0);
  c.mismatches = j.value("mismatches", int64_t{0});
  c.checked = j.value("checked", int64_t{0});
  c.output = j.value("output", "");
  c.first_bad_index = j.value("first_bad_index", std::vector<int64_t>{});
  c.expected = j.value("expected", "");
  c.got = j.value("got", "");
  c.message = j.value("message", "");
}

void to_json(json& j, const Timing& t) {
  j = json{{"median_us", t.median_us}, {"iqr_us", t.iqr_us}, {"mean_us", t.mean_us}, {"rse", t.rse}, {"iterations", t.iterations}};
}

void from_json(const json& j, Timing& t) {
  t.median_us = j.value("median_us", 0.0);
  t.iqr_us = j.value("iqr_us", 0.0);
  t.mean_us = j.value("mean_us", 0.0);
  t.rse = j.value("rse", 0.0);
  t.iterations = j.value("iterations", int64_t{0});
}

void to_json(json& j, const CaseTiming& t) {
  j = json{{"name", t.name}, {"dtype", t.dtype}, {"candidate", t.candidate}, {"candidate_host", t.candidate_host}, {"speedup", t.speedup},
           {"floor_us", t.floor_us}, {"roofline_fraction", t.roofline_fraction}, {"rechecked", t.rechecked}};
  j["baseline"] = t.baseline ? json(*t.baseline) : json(nullptr);
  j["baseline_kind"] = t.baseline_kind;
  j["achieved_gflops"] = t.achieved_gflops;
  j["achieved_gbs"] = t.achieved_gbs;
  j["compute_fraction"] = t.compute_fraction;
  j["bandwidth_fraction"] = t.bandwidth_fraction;
  j["bound"] = t.bound;
  j["speedup_interval"] = t.speedup_high > 0 ? json::array({t.speedup_low, t.speedup_high}) : json(nullptr);
  j["speedup_pairs"] = t.speedup_pairs;
  j["speedup_unstable"] = t.speedup_unstable;
}

void from_json(const json& j, CaseTiming& t) {
  t.name = j.value("name", "");
  t.dtype = j.value("dtype", "");
  if (j.contains("candidate")) t.candidate = j["candidate"].get<Timing>();
  if (j.contains("candidate_host")) t.candidate_host = j["candidate_host"].get<Timing>();
  if (j.contains("baseline") && !j["baseline"].is_null()) t.baseline = j["baseline"].get<Timing>();
  t.baseline_kind = j.value("baseline_kind", "");
  t.speedup = j.value("speedup", 0.0);
  t.floor_us = j.value("floor_us", 0.0);
  t.roofline_fraction = j.value("roofline_fraction", 0.0);
  t.rechecked = j.value("rechecked", false);
  t.achieved_gflops = j.value("achieved_gflops", 0.0);
  t.achieved_gbs = j.value("achieved_gbs", 0.0);
  t.compute_fraction = j.value("compute_fraction", 0.0);
  t.bandwidth_fraction = j.value("bandwidth_fraction", 0.0);
  t.bound = j.value("bound", "");
  if (j.contains("speedup_interval") && j["speedup_interval"].is_array() && j["speedup_interval"].size() == 2) {
    t.speedup_low = j["speedup_interval"][0].get<double>();
    t.speedup_high = j["speedup_interval"][1].get<double>();
  }
  t.speedup_pairs = j.value("speedup_pairs", 0);
  t.speedup_unstable = j.value("speedup_unstable", false);
}

void to_json(json& j, const Verdict& v) {
  j = json{{"task", v.task},
           {"platform", v.platform},
           {"kernel_hash", v.kernel_hash},
           {"stage", stage_name(v.stage)},
           {"outcome", outcome_name(v.outcome)},
           {"passed", v.passed()},
           {"summary", v.summary},
           {"diagnostics", v.diagnostics},
           {"findings", v.findings},
           {"cases", v.cases},
           {"timings", v.timings},
           {"speedup", v.speedup},
           {"child_stdout", v.child_stdout},
           {"child_stderr", v.child_stderr},
           {"platform_facts", v.platform_facts},
           {"seconds",
            {{"lint", v.lint_seconds}, {"compile", v.compile_seconds}, {"check", v.check_seconds}, {"time", v.time_seconds}, {"total", v.total_seconds}}}};
}

void from_json(const json& j, Verdict& v) {
  v.task = j.value("task", "");
  v.platform = j.value("platform", "");
  v.kernel_hash = j.value("kernel_hash", "");
  std::string stage = j.value("stage", "lint"), outcome = j.value("outcome", "infra-error");
  for (Stage s : {Stage::Lint, Stage::Compile, Stage::Check, Stage::Time, Stage::Done})
    if (stage_name(s) == stage) v.stage = s;
  for (Outcome o : {Outcome::Passed, Outcome::LintRejected, Outcome::CompileError, Outcome::RuntimeError, Outcome::Timeout,
                    Outcome::WrongResult, Outcome::CheatDetected, Outcome::InfraError})
    if (outcome_name(o) == outcome) v.outcome = o;
  v.summary = j.value("summary", "");
  v.diagnostics = j.value("diagnostics", std::vector<Diagnostic>{});
  v.findings = j.value("findings", std::vector<Finding>{});
  v.cases = j.value("cases", std::vector<CaseCheck>{});
  v.timings = j.value("timings", std::vector<CaseTiming>{});
  v.speedup = j.value("speedup", 0.0);
  v.child_stdout = j.value("child_stdout", "");
  v.child_stderr = j.value("child_stderr", "");
  v.platform_facts = j.value("platform_facts", "");
  if (j.contains("seconds")) {
    const auto& s = j["seconds"];
    v.lint_seconds = s.value("lint", 0.0);
    v.compile_seconds = s.value("compile", 0.0);
    v.check_seconds = s.value("check", 0.0);
    v.time_seconds = s.value("time", 0.0);
    v.total_seconds = s.value("total", 0.0);
  }
}

std::vector<Diagnostic> parse_compiler_diagnostics(std::string_view output) {
  // gcc/clang: "file:line:col: severity: message" (col optional);
  // nvcc/EDG: "file(line): severity: message"; the linker: "file:(...): undefined reference ..." /
  // "ld: ...: message" — kept as file-less errors.
  static const std::regex gcc(R"(^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$)");
  static const std::regex edg(R"(^(.+?)\((\d+)\): (error|warning|remark)[^:]*: (.*)$)");
  static const std::regex link(R"(^(?:.*?\b(?:ld|collect2|nvlink)(?:\.\w+)?: )?(?:.*: )?(undefined reference to .*|multiple definition of .*|error: ld returned .*|cannot find .*)$)");
  std::vector<Diagnostic> out;
  std::istringstream in{std::string(output)};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, gcc)) {
      Diagnostic d;
      d.file = m[1];
      d.line = std::stoi(m[2]);
      d.column = m[3].matched ? std::stoi(m[3]) : 0;
      d.severity = m[4] == "fatal error" ? "fatal" : std::string(m[4]);
      d.message = m[5];
      out.push_back(std::move(d));
    } else if (std::regex_match(line, m, edg)) {
      Diagnostic d;
      d.file = m[1];
      d.line = std::stoi(m[2]);
      d.severity = m[3] == "remark" ? "note" : std::string(m[3]);
      d.message = m[4];
      out.push_back(std::move(d));
    } else if (std::regex_match(line, m, link)) {
      Diagnostic d;
      d.severity = "error";
      d.message = m[1];
      out.push_back(std::move(d));
    } else if (!out.empty() && !line.empty() && (line[0] == ' ' || line[0] == '|')) {
      // The caret excerpt gcc prints under a diagnostic.
      if (out.back().excerpt.empty() && line.find('|') != std::string::npos) {
        auto bar = line.find('|');
        out.back().excerpt = line.substr(bar + 1);
      }
    }
  }
  return out;
}

}  // namespace kgb
