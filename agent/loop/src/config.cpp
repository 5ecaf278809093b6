// The run configuration: TOML (what people write) is turned into the same
// JSON shape the store records, and one strict reader handles both.
#include "kgb/agent/config.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <toml++/toml.h>

namespace kgb::agent {

namespace {

using json = nlohmann::json;

// toml++ tables to JSON. Dates and times are kept as their TOML text.
json to_json_value(const toml::node& node) {
  if (auto t = node.as_table()) {
    json j = json::object();
    for (const auto& [key, value] : *t) j[std::string(key.str())] = to_json_value(value);
    return j;
  }
  if (auto a = node.as_array()) {
    json j = json::array();
    for (const auto& value : *a) j.push_back(to_json_value(value));
    return j;
  }
  if (auto v = node.as_string()) return v->get();
  if (auto v = node.as_integer()) return v->get();
  if (auto v = node.as_floating_point()) return v->get();
  if (auto v = node.as_boolean()) return v->get();
  std::ostringstream os;
  node.visit([&os](const auto& n) { os << n; });
  return os.str();
}

// Reads one section strictly: every key must be known, every value of the right type.
class Section {
 public:
  Section(const json& root, std::string name, std::string& error) : name_(std::move(name)), error_(error) {
    const json* node = &root;
    std::string path;
    for (size_t start = 0; start <= name_.size();) {
      size_t dot = name_.find('.', start);
      if (dot == std::string::npos) dot = name_.size();
      std::string part = name_.substr(start, dot - start);
      start = dot + 1;
      if (!node->is_object() || !node->contains(part)) {
        node = nullptr;
        break;
      }
      node = &(*node)[part];
    }
    if (node && !node->is_object()) {
      fail("[" + name_ + "] must be a table");
      node = nullptr;
    }
    obj_ = node;
  }

  // Call after reading every key: reports the ones nobody asked for.
  void finish() {
    if (!obj_ || !error_.empty()) return;
    for (const auto& [key, value] : obj_->items())
      if (!seen_.count(key)) {
        fail("unknown key '" + key + "' in [" + name_ + "]");
        return;
      }
  }

  template <class T>
  void get(const char* key, T& out) {
    seen_.insert(key);
    if (!obj_ || !error_.empty() || !obj_->contains(key)) return;
    const json& v = (*obj_)[key];
    try {
      if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean()) throw std::invalid_argument("a boolean");
        out = v.get<bool>();
      } else if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string()) throw std::invalid_argument("a string");
        out = v.get<std::string>();
      } else if constexpr (std::is_floating_point_v<T>) {
        // nan and inf would be recorded as null, and the run could not be resumed.
        if (!v.is_number() || !std::isfinite(v.get<double>())) throw std::invalid_argument("a finite number");
        out = v.get<T>();
      } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
        if (!v.is_array()) throw std::invalid_argument("a list of strings");
        out.clear();
        for (const auto& x : v) {
          if (!x.is_string()) throw std::invalid_argument("a list of strings");
          out.push_back(x.get<std::string>());
        }
      } else if constexpr (std::is_same_v<T, json>) {
        if (!v.is_object()) throw std::invalid_argument("a table");
        out = v;
      } else if constexpr (std::is_integral_v<T>) {
        if (!v.is_number_integer()) throw std::invalid_argument("an integer");
        using limits = std::numeric_limits<T>;
        const bool negative = !v.is_number_unsigned() && v.get<int64_t>() < 0;
        if constexpr (std::is_unsigned_v<T>)
          if (negative) throw std::invalid_argument("a non-negative integer");
        // Never narrowed silently: samples = 4294967297 is not 1.
        const bool fits = negative ? v.get<int64_t>() >= static_cast<int64_t>(limits::min())
                                   : v.get<uint64_t>() <= static_cast<uint64_t>(limits::max());
        if (!fits)
          throw std::invalid_argument("an integer from " + std::to_string(limits::min()) + " to " + std::to_string(limits::max()));
        out = v.get<T>();
      }
    } catch (const std::invalid_argument& e) {
      fail("[" + name_ + "] " + key + " must be " + e.what());
    }
  }

  template <class T>
  void get(const char* key, std::optional<T>& out) {
    seen_.insert(key);
    if (!obj_ || !error_.empty() || !obj_->contains(key)) return;
    if ((*obj_)[key].is_null()) {
      out.reset();
      return;
    }
    T value{};
    get(key, value);
    if (error_.empty()) out = value;
  }

  // A key read by other means (a sub-table).
  void skip(const char* key) { seen_.insert(key); }

  const json* object() const { return obj_; }
  void fail(const std::string& message) {
    if (error_.empty()) error_ = message;
  }

 private:
  std::string name_;
  std::string& error_;
  const json* obj_ = nullptr;
  std::set<std::string> seen_;
};

void read_budget(const json& root, const std::string& name, BudgetLimits& b, std::string& error) {
  Section s(root, name, error);
  s.get("tokens", b.total_tokens);
  s.get("input_tokens", b.input_tokens);
  s.get("output_tokens", b.output_tokens);
  s.get("reasoning_tokens", b.reasoning_tokens);
  s.get("cached_tokens", b.cached_tokens);
  s.get("usd", b.usd);
  s.get("iterations", b.iterations);
  s.get("wall_seconds", b.wall_seconds);
  s.finish();
}

json budget_json(const BudgetLimits& b) {
  json j;
  to_json(j, b);
  return j;
}

Result<RunConfig> from_tree(const json& root, RunConfig c, const std::string& origin) {
  std::string error;
  if (!root.is_object()) return make_error("config.invalid", origin + ": the configuration must be a table");
  for (const auto& [key, value] : root.items())
    if (key != "run" && key != "provider" && key != "prices" && key != "oracle" && key != "evaluation" &&
        key != "feedback" && key != "budget" && key != "policy" && key != "executor")
      return make_error("config.invalid", origin + ": unknown section [" + key + "]");
  {
    Section s(root, "run", error);
    s.get("id", c.run_id);
    s.get("policy", c.policy);
    s.get("platform", c.platform);
    s.get("tasks", c.tasks);
    s.get("task_ids", c.task_ids);
    s.get("samples", c.samples);
    s.get("concurrency", c.concurrency);
    s.get("seed", c.seed);
    s.get("store", c.store);
    s.get("prompts", c.prompts_dir);
    s.finish();
  }
  {
    auto& p = c.provider;
    Section s(root, "provider", error);
    s.get("name", p.name);
    s.get("model", p.model);
    s.get("base_url", p.base_url);
    s.get("api_key_env", p.api_key_env);
    s.get("max_concurrent", p.max_concurrent);
    s.get("requests_per_minute", p.requests_per_minute);
    s.get("tokens_per_minute", p.tokens_per_minute);
    s.get("temperature", p.temperature);
    s.get("max_output_tokens", p.max_output_tokens);
    s.get("stream", p.stream);
    s.get("timeout_seconds", p.timeout_seconds);
    s.get("retries", p.retries);
    s.get("prices", p.prices_file);
    s.get("reasoning_effort", p.reasoning_effort);
    s.get("thinking_budget", p.thinking_budget);
    s.get("session_header", p.session_header);
    s.get("extra", p.extra);
    s.finish();
  }
  if (root.contains("prices")) {
    const json& prices = root["prices"];
    if (!prices.is_object()) return make_error("config.invalid", origin + ": [prices] must be a table of models");
    for (const auto& [model, value] : prices.items()) {
      json wrapper = {{"m", value}};
      Section s(wrapper, "m", error);
      TokenPrices tp;
      s.get("input", tp.input);
      s.get("cached_input", tp.cached_input);
      s.get("output", tp.output);
      s.get("cache_write", tp.cache_write);
      s.finish();
      if (!error.empty()) {
        auto at = error.find("[m]");
        if (at != std::string::npos) error.replace(at, 3, "[prices.\"" + model + "\"]");
        break;
      }
      if (!value.contains("cached_input")) tp.cached_input = tp.input;
      if (!value.contains("cache_write")) tp.cache_write = tp.input;
      c.provider.prices[model] = tp;
    }
  }
  {
    auto& o = c.oracle;
    Section s(root, "oracle", error);
    s.get("compile_error_attempts", o.compile_error_attempts);
    s.get("wrong_result_attempts", o.wrong_result_attempts);
    std::string latency;
    s.get("latency_ms", latency);
    if (!latency.empty()) {
      try {
        const auto colon = latency.find(':');
        o.latency_min_ms = std::stoll(latency.substr(0, colon));
        o.latency_max_ms = colon == std::string::npos ? o.latency_min_ms : std::stoll(latency.substr(colon + 1));
      } catch (const std::exception&) {
        s.fail("[oracle] latency_ms must be \"MS\" or \"MIN:MAX\"");
      }
    }
    s.get("latency_min_ms", o.latency_min_ms);
    s.get("latency_max_ms", o.latency_max_ms);
    s.get("seed", o.seed);
    s.get("fail_429", o.fail_429);
    s.get("fail_500", o.fail_500);
    s.get("fail_mid_stream", o.fail_mid_stream);
    s.get("fail_truncate", o.fail_truncate);
    s.get("threads", o.threads);
    s.finish();
  }
  {
    auto& e = c.evaluation;
    Section s(root, "evaluation", error);
    s.get("lint", e.lint);
    s.get("time", e.time);
    s.get("baseline", e.baseline);
    s.get("seeds_per_case", e.seeds_per_case);
    s.get("time_budget_seconds", e.time_budget_seconds);
    s.get("timing_pairs", e.timing_pairs);
    if (e.timing_pairs < 1) s.fail("[evaluation] timing_pairs must be at least 1");
    s.get("check_timeout_seconds", e.check_timeout_seconds);
    s.get("jobs", e.jobs);
    s.get("cases", e.cases);
    s.get("profile_below", e.profile_below);
    if (e.profile_below < 0) s.fail("[evaluation] profile_below must be a speedup >= 0 (0: never profile)");
    s.finish();
  }
  {
    auto& f = c.feedback;
    Section s(root, "feedback", error);
    s.get("max_diagnostics", f.max_diagnostics);
    s.get("max_cases", f.max_cases);
    s.get("max_findings", f.max_findings);
    s.get("max_chars", f.max_chars);
    s.get("max_line_chars", f.max_line_chars);
    s.finish();
  }
  if (root.contains("budget")) {
    if (!root["budget"].is_object()) return make_error("config.invalid", origin + ": [budget] must be a table");
    for (const auto& [key, value] : root["budget"].items())
      if (key != "attempt" && key != "run")
        return make_error("config.invalid", origin + ": unknown table [budget." + key + "] (attempt or run)");
    if (root["budget"].contains("attempt")) {
      c.attempt_budget = {};
      read_budget(root, "budget.attempt", c.attempt_budget, error);
    }
    if (root["budget"].contains("run")) {
      c.run_budget = {};
      read_budget(root, "budget.run", c.run_budget, error);
    }
  }
  if (root.contains("policy")) {
    if (!root["policy"].is_object()) return make_error("config.invalid", origin + ": [policy] must hold [policy.<name>] tables");
    for (const auto& [name, params] : root["policy"].items()) {
      if (!params.is_object())
        return make_error("config.invalid", origin + ": [policy." + name + "] must be a table of parameters");
      c.policies[name] = params;
    }
  }
  if (!error.empty()) return make_error("config.invalid", origin + ": " + error);
  if (root.contains("executor")) {
    auto executor = executor_settings_from_json(root["executor"], origin);
    if (!executor) return executor.error();
    c.executor = std::move(executor.value());
  }
  return c;
}

}  // namespace

Result<ExecutorSettings> executor_settings_from_json(const json& table, const std::string& origin) {
  ExecutorSettings e;
  std::string error;
  const json root = {{"executor", table}};
  Section s(root, "executor", error);
  s.get("kind", e.kind);
  s.get("work_dir", e.work_dir);
  s.get("kgb", e.kgb);
  s.get("partition", e.partition);
  s.get("compile_partition", e.compile_partition);
  s.get("account", e.account);
  s.get("qos", e.qos);
  s.get("time_limit", e.time_limit);
  s.get("max_jobs", e.max_jobs);
  s.get("max_retries", e.max_retries);
  s.get("worker_idle_seconds", e.worker_idle_seconds);
  s.get("evaluations_per_job", e.evaluations_per_job);
  s.get("sbatch_options", e.sbatch_options);
  s.get("poll_seconds", e.poll_seconds);
  s.get("squeue_seconds", e.squeue_seconds);
  s.skip("partitions");
  s.skip("partition_options");
  s.finish();
  if (error.empty() && table.is_object() && table.contains("partitions")) {
    const json& p = table["partitions"];
    if (!p.is_object()) error = "[executor.partitions] must be a table of platform = \"partition\"";
    else
      for (const auto& [platform, partition] : p.items()) {
        if (!partition.is_string()) {
          error = "[executor.partitions] " + platform + " must be a string";
          break;
        }
        e.partitions[platform] = partition.get<std::string>();
      }
  }
  if (error.empty() && table.is_object() && table.contains("partition_options")) {
    const json& p = table["partition_options"];
    if (!p.is_object()) error = "[executor.partition_options] must be a table of partition = [\"--option\", ...]";
    else
      for (const auto& [partition, options] : p.items()) {
        json wrapper = {{"o", {{"list", options}}}};
        std::string list_error;
        Section ls(wrapper, "o", list_error);
        std::vector<std::string> list;
        ls.get("list", list);
        if (!list_error.empty()) {
          error = "[executor.partition_options] " + partition + " must be a list of strings";
          break;
        }
        e.partition_options[partition] = list;
      }
  }
  if (!error.empty()) return make_error("config.invalid", origin + ": " + error);
  if (auto v = validate_executor_settings(e); !v) return make_error("config.invalid", origin + ": " + v.error().message);
  return e;
}

json executor_settings_to_json(const ExecutorSettings& e) {
  json partition_options = json::object();
  for (const auto& [p, o] : e.partition_options) partition_options[p] = o;
  return {{"kind", e.kind},
          {"work_dir", e.work_dir},
          {"kgb", e.kgb},
          {"partition", e.partition},
          {"partitions", e.partitions},
          {"compile_partition", e.compile_partition},
          {"account", e.account},
          {"qos", e.qos},
          {"time_limit", e.time_limit},
          {"max_jobs", e.max_jobs},
          {"max_retries", e.max_retries},
          {"worker_idle_seconds", e.worker_idle_seconds},
          {"evaluations_per_job", e.evaluations_per_job},
          {"sbatch_options", e.sbatch_options},
          {"partition_options", partition_options},
          {"poll_seconds", e.poll_seconds},
          {"squeue_seconds", e.squeue_seconds}};
}

Status validate_executor_settings(const ExecutorSettings& e) {
  auto bad = [](const std::string& m) { return Status(make_error("config.invalid", m)); };
  if (e.kind != "local" && e.kind != "slurm") return bad("executor.kind must be \"local\" or \"slurm\", not \"" + e.kind + "\"");
  if (e.max_jobs < 1) return bad("executor.max_jobs must be at least 1");
  if (e.max_retries < 0) return bad("executor.max_retries must not be negative");
  if (e.worker_idle_seconds <= 0) return bad("executor.worker_idle_seconds must be positive");
  if (e.evaluations_per_job < 0) return bad("executor.evaluations_per_job must not be negative");
  if (e.poll_seconds <= 0 || e.poll_seconds > 10) return bad("executor.poll_seconds must lie in (0, 10]");
  if (e.squeue_seconds <= 0 || e.squeue_seconds > 600) return bad("executor.squeue_seconds must lie in (0, 600]");
  return Ok{};
}

nlohmann::json RunConfig::policy_params() const {
  if (policies.is_object() && policies.contains(policy)) return policies[policy];
  return json::object();
}

Result<RunConfig> parse_config_toml(std::string_view text, std::string_view origin, RunConfig base) {
  json root;
  try {
    toml::table table = toml::parse(text, origin);
    root = to_json_value(table);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << origin << ":" << e.source().begin.line << ":" << e.source().begin.column << ": " << e.description();
    return make_error("config.syntax", os.str());
  }
  return from_tree(root, std::move(base), std::string(origin));
}

Result<RunConfig> load_config_file(const std::filesystem::path& file, RunConfig base) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("config.unreadable", "cannot read the configuration file " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config_toml(text.str(), file.string(), std::move(base));
}

nlohmann::json config_to_json(const RunConfig& c) {
  json j;
  j["run"] = {{"id", c.run_id},       {"policy", c.policy},   {"platform", c.platform},
              {"tasks", c.tasks},     {"task_ids", c.task_ids}, {"samples", c.samples}, {"concurrency", c.concurrency},
              {"seed", c.seed},       {"store", c.store},     {"prompts", c.prompts_dir}};
  const auto& p = c.provider;
  json provider = {{"name", p.name},
                   {"model", p.model},
                   {"base_url", p.base_url},
                   {"max_concurrent", p.max_concurrent},
                   {"requests_per_minute", p.requests_per_minute},
                   {"tokens_per_minute", p.tokens_per_minute},
                   {"max_output_tokens", p.max_output_tokens},
                   {"stream", p.stream},
                   {"timeout_seconds", p.timeout_seconds},
                   {"retries", p.retries},
                   {"prices", p.prices_file},
                   {"reasoning_effort", p.reasoning_effort}};
  if (p.api_key_env) provider["api_key_env"] = *p.api_key_env;
  if (p.temperature) provider["temperature"] = *p.temperature;
  if (p.thinking_budget) provider["thinking_budget"] = *p.thinking_budget;
  if (p.session_header) provider["session_header"] = *p.session_header;
  if (p.extra.is_object() && !p.extra.empty()) provider["extra"] = p.extra;
  j["provider"] = provider;
  if (!p.prices.empty()) {
    json prices = json::object();
    for (const auto& [model, tp] : p.prices)
      prices[model] = {{"input", tp.input}, {"cached_input", tp.cached_input}, {"output", tp.output}, {"cache_write", tp.cache_write}};
    j["prices"] = prices;
  }
  const auto& o = c.oracle;
  j["oracle"] = {{"compile_error_attempts", o.compile_error_attempts},
                 {"wrong_result_attempts", o.wrong_result_attempts},
                 {"latency_min_ms", o.latency_min_ms},
                 {"latency_max_ms", o.latency_max_ms},
                 {"seed", o.seed},
                 {"fail_429", o.fail_429},
                 {"fail_500", o.fail_500},
                 {"fail_mid_stream", o.fail_mid_stream},
                 {"fail_truncate", o.fail_truncate},
                 {"threads", o.threads}};
  const auto& e = c.evaluation;
  j["evaluation"] = {{"lint", e.lint},
                     {"time", e.time},
                     {"baseline", e.baseline},
                     {"seeds_per_case", e.seeds_per_case},
                     {"time_budget_seconds", e.time_budget_seconds},
                     {"timing_pairs", e.timing_pairs},
                     {"check_timeout_seconds", e.check_timeout_seconds},
                     {"jobs", e.jobs},
                     {"cases", e.cases},
                     {"profile_below", e.profile_below}};
  const auto& f = c.feedback;
  j["feedback"] = {{"max_diagnostics", f.max_diagnostics},
                   {"max_cases", f.max_cases},
                   {"max_findings", f.max_findings},
                   {"max_chars", f.max_chars},
                   {"max_line_chars", f.max_line_chars}};
  j["budget"] = {{"attempt", budget_json(c.attempt_budget)}, {"run", budget_json(c.run_budget)}};
  j["policy"] = c.policies.is_object() ? c.policies : json::object();
  j["executor"] = executor_settings_to_json(c.executor);
  return j;
}

Result<RunConfig> config_from_json(const nlohmann::json& j) { return from_tree(j, RunConfig{}, "recorded configuration"); }

Status validate_config(const RunConfig& c) {
  auto bad = [](const std::string& m) { return Status(make_error("config.invalid", m)); };
  if (c.samples < 1) return bad("samples must be at least 1");
  if (c.concurrency < 1) return bad("concurrency must be at least 1");
  if (c.provider.max_concurrent < 0) return bad("provider.max_concurrent must not be negative");
  if (c.provider.max_output_tokens < 1) return bad("provider.max_output_tokens must be at least 1");
  if (c.provider.retries < 0) return bad("provider.retries must not be negative");
  if (c.provider.timeout_seconds <= 0) return bad("provider.timeout_seconds must be positive");
  if (c.evaluation.seeds_per_case < 1) return bad("evaluation.seeds_per_case must be at least 1");
  if (c.evaluation.jobs < 0) return bad("evaluation.jobs must not be negative");
  if (c.feedback.max_diagnostics < 0 || c.feedback.max_cases < 0 || c.feedback.max_findings < 0)
    return bad("feedback limits must not be negative");
  if (c.feedback.max_chars < 200) return bad("feedback.max_chars must be at least 200");
  if (auto e = validate_executor_settings(c.executor); !e) return e;
  const auto& o = c.oracle;
  if (o.compile_error_attempts < 0 || o.wrong_result_attempts < 0) return bad("oracle fault counts must not be negative");
  if (o.latency_min_ms < 0 || o.latency_max_ms < o.latency_min_ms) return bad("oracle latency must be MIN <= MAX, both >= 0");
  for (double r : {o.fail_429, o.fail_500, o.fail_mid_stream, o.fail_truncate})
    if (r < 0 || r > 1) return bad("oracle failure rates must lie in [0, 1]");
  if (o.fail_429 + o.fail_500 + o.fail_mid_stream + o.fail_truncate > 1) return bad("oracle failure rates add up to more than 1");
  for (const BudgetLimits* b : {&c.attempt_budget, &c.run_budget}) {
    for (const auto* v : {&b->input_tokens, &b->output_tokens, &b->reasoning_tokens, &b->cached_tokens, &b->total_tokens})
      if (*v && **v < 0) return bad("token budgets must not be negative");
    if (b->usd && *b->usd < 0) return bad("money budgets must not be negative");
    if (b->iterations && *b->iterations < 0) return bad("iteration budgets must not be negative");
    if (b->wall_seconds && *b->wall_seconds < 0) return bad("wall-time budgets must not be negative");
  }
  return Ok{};
}

}  // namespace kgb::agent
