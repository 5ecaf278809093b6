#include "kgb/mcp/usage.h"

#include <cmath>
#include <map>

namespace kgb::mcp {

using json = nlohmann::json;

namespace {

// A token count: absent (nullopt), or a non-negative integer (an integral
// float such as 12.0 is accepted; anything else is an error).
Result<std::optional<int64_t>> count(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<int64_t>{};
  if (it->is_number_unsigned()) {
    if (it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return make_error("usage.invalid", std::string(key) + " is too large");
    return std::optional<int64_t>{static_cast<int64_t>(it->get<uint64_t>())};
  }
  if (it->is_number_integer()) {
    if (it->get<int64_t>() < 0) return make_error("usage.invalid", std::string(key) + " is negative");
    return std::optional<int64_t>{it->get<int64_t>()};
  }
  if (it->is_number_float()) {
    const double v = it->get<double>();
    if (std::isfinite(v) && v >= 0 && v < 9e18 && std::floor(v) == v) return std::optional<int64_t>{static_cast<int64_t>(v)};
  }
  return make_error("usage.invalid", std::string(key) + " must be a non-negative integer, got " + it->dump());
}

// The count at obj[outer][key], absent when the nested object is.
Result<std::optional<int64_t>> nested_count(const json& obj, const char* outer, const char* key) {
  const auto it = obj.find(outer);
  if (it == obj.end() || !it->is_object()) return std::optional<int64_t>{};
  return count(*it, key);
}

Result<std::optional<double>> dollars(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<double>{};
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
    return make_error("usage.invalid", std::string(key) + " must be a non-negative number, got " + it->dump());
  return std::optional<double>{it->get<double>()};
}

}  // namespace

Result<ReportedUsage> parse_reported_usage(const json& value) {
  if (!value.is_object()) return make_error("usage.invalid", "usage must be a JSON object");
  const json* u = &value;
  if (const auto it = value.find("usage"); it != value.end() && it->is_object()) u = &*it;
  ReportedUsage r;
  r.raw = value;

  // Every count the shapes use, read once so that a malformed one is reported.
  const char* keys[] = {"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                        "prompt_tokens", "completion_tokens", "cached_input_tokens", "cache_write_tokens",
                        "reasoning_tokens", "reasoning_output_tokens"};
  std::map<std::string, std::optional<int64_t>> c;
  for (const char* k : keys) {
    auto v = count(*u, k);
    if (!v) return v.error();
    c[k] = *v;
  }
  auto get = [&](const char* k) { return c[k].value_or(0); };
  auto nested = [&](const char* outer, const char* key) -> Result<int64_t> {
    auto v = nested_count(*u, outer, key);
    if (!v) return v.error();
    return v->value_or(0);
  };

  if (c["cache_read_input_tokens"] || c["cache_creation_input_tokens"]) {
    // Anthropic: the three kinds of prompt tokens are reported apart.
    r.tokens.cached_input = get("cache_read_input_tokens");
    r.tokens.cache_write = get("cache_creation_input_tokens");
    r.tokens.input = get("input_tokens") + r.tokens.cached_input + r.tokens.cache_write;
    r.tokens.output = get("output_tokens");
  } else if (c["prompt_tokens"] || c["completion_tokens"]) {
    auto cached = nested("prompt_tokens_details", "cached_tokens");
    if (!cached) return cached.error();
    auto reasoning = nested("completion_tokens_details", "reasoning_tokens");
    if (!reasoning) return reasoning.error();
    r.tokens.input = get("prompt_tokens");
    r.tokens.cached_input = *cached;
    r.tokens.output = get("completion_tokens");
    r.tokens.reasoning = *reasoning;
  } else if (c["input_tokens"] || c["output_tokens"]) {
    auto cached = nested("input_tokens_details", "cached_tokens");
    if (!cached) return cached.error();
    auto reasoning = nested("output_tokens_details", "reasoning_tokens");
    if (!reasoning) return reasoning.error();
    r.tokens.input = get("input_tokens");
    r.tokens.cached_input = c["cached_input_tokens"] ? get("cached_input_tokens") : *cached;
    r.tokens.cache_write = get("cache_write_tokens");
    r.tokens.output = get("output_tokens");
    r.tokens.reasoning = c["reasoning_tokens"]           ? get("reasoning_tokens")
                         : c["reasoning_output_tokens"] ? get("reasoning_output_tokens")
                                                         : *reasoning;
  } else {
    return make_error("usage.no-tokens",
                      "no token counts found (expected input_tokens/output_tokens, or prompt_tokens/completion_tokens)");
  }
  if (r.tokens.cached_input + r.tokens.cache_write > r.tokens.input)
    return make_error("usage.invalid", "cached prompt tokens exceed the prompt tokens");
  if (r.tokens.reasoning > r.tokens.output) return make_error("usage.invalid", "reasoning tokens exceed the output tokens");

  for (const json* where : {&value, u})
    for (const char* key : {"total_cost_usd", "cost_usd"}) {
      auto cost = dollars(*where, key);
      if (!cost) return cost.error();
      if (*cost && !r.cost_usd) r.cost_usd = *cost;
    }
  for (const json* where : {&value, u}) {
    if (const auto m = where->find("model"); m != where->end() && m->is_string() && r.model.empty()) r.model = *m;
    if (const auto e = where->find("estimated"); e != where->end() && e->is_boolean() && e->get<bool>()) r.estimated = true;
  }
  if (const auto d = value.find("duration_api_ms"); d != value.end() && d->is_number() && d->get<double>() > 0)
    r.api_seconds = d->get<double>() / 1000.0;
  return r;
}

Result<ReportedUsage> parse_reported_usage_text(std::string_view text) {
  const json whole = json::parse(text.begin(), text.end(), nullptr, false);
  if (!whole.is_discarded()) {
    if (whole.is_array()) {
      for (auto it = whole.rbegin(); it != whole.rend(); ++it)
        if (auto u = parse_reported_usage(*it)) return u;
      return make_error("usage.no-tokens", "no element of the JSON array carries token usage");
    }
    return parse_reported_usage(whole);
  }
  // JSON lines: the last line that carries usage.
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  bool any_json = false;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const json line = json::parse(it->begin(), it->end(), nullptr, false);
    if (line.is_discarded()) continue;
    any_json = true;
    if (auto u = parse_reported_usage(line)) return u;
  }
  return make_error("usage.no-tokens", any_json ? "no line of the input carries token usage"
                                                : "the input is neither JSON nor JSON lines");
}

nlohmann::json reported_usage_json(const ReportedUsage& usage) {
  nlohmann::json j = {{"input_tokens", usage.tokens.input},
                      {"cached_input_tokens", usage.tokens.cached_input},
                      {"cache_write_tokens", usage.tokens.cache_write},
                      {"output_tokens", usage.tokens.output},
                      {"reasoning_tokens", usage.tokens.reasoning},
                      {"reported_by", "agent"}};
  if (usage.cost_usd) j["cost_usd"] = *usage.cost_usd;
  return j;
}

store::LlmCallRecord usage_call_record(const std::string& run_id, int64_t attempt_id, int iteration, int step,
                                       const ReportedUsage& usage, const std::string& source, const json& raw) {
  store::LlmCallRecord rec;
  rec.run_id = run_id;
  rec.attempt_id = attempt_id;
  rec.iteration = iteration;
  rec.step = step;
  rec.status = "done";
  rec.provider = "agent";
  rec.model = usage.model.empty() ? "agent" : usage.model;
  rec.request = {{"reported_by", "agent"}, {"source", source}, {"raw", raw}};
  rec.finish_reason = "reported";
  rec.tokens = usage.tokens;
  rec.usage_source = "agent";  // neither the server's count nor the client's estimate: the agent's word
  rec.usage_estimated = usage.estimated;
  rec.cost_usd = usage.cost_usd;
  rec.latency_ms = static_cast<int64_t>(usage.api_seconds * 1000);
  rec.attempts = 1;
  rec.http_status = 0;
  return rec;
}

Result<UsageRecorded> record_reported_usage(store::RunStore& db, int64_t attempt_id, const ReportedUsage& usage,
                                            const std::string& source, const json& raw) {
  auto attempt = db.attempt(attempt_id);
  if (!attempt) return attempt.error();
  store::AttemptRecord& a = *attempt;
  if (!a.finished())
    return make_error("usage.attempt-running",
                      "attempt " + std::to_string(attempt_id) + " (" + a.task + ") is still " + a.status +
                          ": report its usage through the report_usage tool of its session, or import it once it ends");
  auto recorded = db.iterations(attempt_id);
  if (!recorded) return recorded.error();
  const auto& iterations = *recorded;
  store::IterationRecord it;
  if (iterations.empty()) {
    // Tokens spent without a kernel to show for them.
    it.run_id = a.run_id;
    it.attempt_id = attempt_id;
    it.index = 0;
    it.status = "done";
    it.outcome = "no-code";
    it.detail = {{"summary", "the agent reported usage but no kernel"}};
    it.started_at = a.started_at;
    it.finished_at = a.finished_at;
    a.iterations = std::max(a.iterations, 1);
  } else {
    it = iterations.back();
  }
  // The first step of the iteration with neither a tool call nor an LLM call.
  int step = 0;
  for (;; ++step) {
    auto tool = db.find_tool_call(attempt_id, it.index, step);
    if (!tool) return tool.error();
    if (*tool) continue;
    auto llm = db.find_llm_call(attempt_id, it.index, step);
    if (!llm) return llm.error();
    if (!*llm) break;
  }

  store::LlmCallRecord row = usage_call_record(a.run_id, attempt_id, it.index, step, usage, source, raw);
  auto id = db.begin_llm_call(row);
  if (!id) return id.error();
  row.id = *id;
  if (auto s = db.finish_llm_call(row); !s) return s.error();

  it.tokens += usage.tokens;
  it.cost_usd += usage.cost_usd.value_or(0);
  if (auto s = db.save_iteration(it); !s) return s.error();
  a.tokens += usage.tokens;
  a.cost_usd += usage.cost_usd.value_or(0);
  if (!a.result.is_object()) a.result = json::object();
  json& reported = a.result["agent_reported_usage"];
  if (!reported.is_object()) reported = json::object();
  reported["reports"] = reported.value("reports", 0) + 1;
  reported["reported_by"] = "agent";
  if (auto s = db.finish_attempt(a); !s) return s.error();
  return UsageRecorded{it.index, step, a.tokens, a.cost_usd};
}

}  // namespace kgb::mcp
