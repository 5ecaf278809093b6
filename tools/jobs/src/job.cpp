#include "kgb/jobs/job.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace kgb::jobs {

using json = nlohmann::json;

std::string_view job_kind_name(JobKind kind) {
  switch (kind) {
    case JobKind::Lint: return "lint";
    case JobKind::Compile: return "compile";
    case JobKind::Evaluate: return "evaluate";
    case JobKind::Validate: return "validate";
  }
  return "evaluate";
}

std::optional<JobKind> job_kind_from_name(std::string_view name) {
  for (JobKind k : {JobKind::Lint, JobKind::Compile, JobKind::Evaluate, JobKind::Validate})
    if (job_kind_name(k) == name) return k;
  return std::nullopt;
}

namespace {

bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

// FNV-1a, 64 bits: a fingerprint to notice a reply that belongs to other
// input, not a defence against anyone (the spool folder is private).
uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

template <class T>
std::vector<T> list_of(const json& j, const char* key) {
  std::vector<T> out;
  if (!j.contains(key) || !j[key].is_array()) return out;
  for (const auto& x : j[key]) {
    T item;
    from_json(x, item);
    out.push_back(std::move(item));
  }
  return out;
}

json strings(const std::vector<std::string>& v) { return json(v); }

std::vector<std::string> strings_from(const json& j, const char* key) {
  std::vector<std::string> out;
  if (j.contains(key) && j[key].is_array())
    for (const auto& x : j[key])
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

}  // namespace

bool valid_job_key(std::string_view key) {
  if (key.empty() || key.size() > 200 || key.front() == '.') return false;
  for (char c : key)
    if (!key_char(c)) return false;
  return true;
}

std::string sanitize_job_key(std::string_view text) {
  std::string out;
  for (char c : text) out += key_char(c) ? c : '_';
  if (out.empty() || out.front() == '.') out.insert(out.begin(), '_');
  if (out.size() > 200) out.resize(200);
  return out;
}

json eval_options_json(const EvalOptions& o) {
  json j = {{"lint", o.lint},
            {"time", o.time},
            {"baseline", o.baseline},
            {"seeds_per_case", o.seeds_per_case},
            {"check_timeout_seconds", o.check_timeout_seconds},
            {"time_budget_seconds", o.time_budget_seconds},
            {"target_rse", o.target_rse},
            {"rotating_sets", o.rotating_sets},
            {"case_filter", o.case_filter}};
  // As a string: JSON readers elsewhere (pandas, jq) lose 64-bit integers.
  if (o.seed) j["seed"] = std::to_string(*o.seed);
  return j;
}

EvalOptions eval_options_from_json(const json& j) {
  EvalOptions o;
  o.lint = j.value("lint", o.lint);
  o.time = j.value("time", o.time);
  o.baseline = j.value("baseline", o.baseline);
  o.seeds_per_case = j.value("seeds_per_case", o.seeds_per_case);
  o.check_timeout_seconds = j.value("check_timeout_seconds", o.check_timeout_seconds);
  o.time_budget_seconds = j.value("time_budget_seconds", o.time_budget_seconds);
  o.target_rse = j.value("target_rse", o.target_rse);
  o.rotating_sets = j.value("rotating_sets", o.rotating_sets);
  o.case_filter = j.value("case_filter", o.case_filter);
  if (j.contains("seed") && j["seed"].is_string()) o.seed = std::stoull(j["seed"].get<std::string>());
  return o;
}

std::string JobRequest::digest() const {
  const json what = {{"kind", job_kind_name(kind)}, {"task", task},  {"platform", platform},
                     {"options", eval_options_json(options)}};
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(source, fnv1a(dump(what)))));
  return hex;
}

json to_json(const JobRequest& r) {
  return {{"key", r.key},
          {"kind", job_kind_name(r.kind)},
          {"task", r.task},
          {"platform", r.platform},
          {"source", r.source},
          {"options", eval_options_json(r.options)},
          {"partition", r.partition},
          {"attempt", r.attempt},
          {"failures", strings(r.failures)},
          {"queued_at", r.queued_at},
          {"digest", r.digest()}};
}

Result<JobRequest> request_from_json(const json& j) {
  if (!j.is_object()) return make_error("job.invalid", "a job request must be a JSON object");
  JobRequest r;
  try {
    r.key = j.at("key").get<std::string>();
    auto kind = job_kind_from_name(j.at("kind").get<std::string>());
    if (!kind) return make_error("job.invalid", "unknown job kind '" + j.at("kind").get<std::string>() + "'");
    r.kind = *kind;
    r.task = j.at("task").get<std::string>();
    r.platform = j.at("platform").get<std::string>();
    r.source = j.value("source", "");
    if (j.contains("options")) r.options = eval_options_from_json(j["options"]);
    r.partition = j.value("partition", "");
    r.attempt = j.value("attempt", 1);
    r.failures = strings_from(j, "failures");
    r.queued_at = j.value("queued_at", "");
  } catch (const std::exception& e) {
    return make_error("job.invalid", std::string("job request: ") + e.what());
  }
  if (!valid_job_key(r.key)) return make_error("job.invalid", "job request: invalid key '" + r.key + "'");
  if (j.contains("digest") && j["digest"].is_string() && j["digest"].get<std::string>() != r.digest())
    return make_error("job.invalid", "job request " + r.key + ": the content does not match its digest (damaged file)");
  return r;
}

json to_json(const JobReply& r) {
  return {{"key", r.key},
          {"digest", r.digest},
          {"kind", job_kind_name(r.kind)},
          {"completed", r.completed},
          {"error", r.error},
          {"payload", r.payload},
          {"executor", r.executor},
          {"node", r.node},
          {"partition", r.partition},
          {"job_id", r.job_id},
          {"attempt", r.attempt},
          {"failures", strings(r.failures)},
          {"started_at", r.started_at},
          {"finished_at", r.finished_at},
          {"seconds", r.seconds}};
}

Result<JobReply> reply_from_json(const json& j) {
  if (!j.is_object()) return make_error("job.invalid", "a job reply must be a JSON object");
  JobReply r;
  try {
    r.key = j.at("key").get<std::string>();
    r.digest = j.value("digest", "");
    r.kind = job_kind_from_name(j.value("kind", "evaluate")).value_or(JobKind::Evaluate);
    r.completed = j.at("completed").get<bool>();
    r.error = j.value("error", "");
    if (j.contains("payload")) r.payload = j["payload"];
    r.executor = j.value("executor", "");
    r.node = j.value("node", "");
    r.partition = j.value("partition", "");
    r.job_id = j.value("job_id", "");
    r.attempt = j.value("attempt", 1);
    r.failures = strings_from(j, "failures");
    r.started_at = j.value("started_at", "");
    r.finished_at = j.value("finished_at", "");
    r.seconds = j.value("seconds", 0.0);
  } catch (const std::exception& e) {
    return make_error("job.invalid", std::string("job reply: ") + e.what());
  }
  if (r.completed && !r.payload.is_object()) return make_error("job.invalid", "job reply " + r.key + ": no payload");
  return r;
}

json lint_json(const LintOutcome& o, bool available) {
  return {{"available", available}, {"parse_ok", o.parse_ok}, {"diagnostics", o.diagnostics}, {"findings", o.findings}};
}

LintOutcome lint_from_json(const json& j) {
  LintOutcome o;
  o.parse_ok = j.value("parse_ok", true);
  o.diagnostics = list_of<Diagnostic>(j, "diagnostics");
  o.findings = list_of<Finding>(j, "findings");
  return o;
}

json compile_json(const CompileOutput& c) {
  return {{"ok", c.ok},     {"diagnostics", c.diagnostics}, {"findings", c.findings},
          {"log", c.log},   {"seconds", c.seconds},         {"infra_error", c.infra_error}};
}

CompileOutput compile_from_json(const json& j) {
  CompileOutput c;
  c.ok = j.value("ok", false);
  c.diagnostics = list_of<Diagnostic>(j, "diagnostics");
  c.findings = list_of<Finding>(j, "findings");
  c.log = j.value("log", "");
  c.seconds = j.value("seconds", 0.0);
  c.infra_error = j.value("infra_error", "");
  return c;
}

json validation_json(const TaskValidation& v) {
  json j = {{"task", v.task}, {"passed", v.passed}, {"problems", strings(v.problems)}, {"gaps", strings(v.gaps)}};
  if (v.solution) j["verdict"] = *v.solution;
  return j;
}

TaskValidation validation_from_json(const json& j) {
  TaskValidation v;
  v.task = j.value("task", "");
  v.passed = j.value("passed", false);
  v.problems = strings_from(j, "problems");
  v.gaps = strings_from(j, "gaps");
  if (j.contains("verdict") && j["verdict"].is_object()) {
    Verdict verdict;
    from_json(j["verdict"], verdict);
    v.solution = std::move(verdict);
  }
  return v;
}

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace kgb::jobs
