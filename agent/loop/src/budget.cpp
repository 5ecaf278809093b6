#include "kgb/agent/budget.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

namespace kgb::agent {

bool BudgetLimits::unlimited() const {
  return !input_tokens && !output_tokens && !reasoning_tokens && !cached_tokens && !total_tokens && !usd && !iterations &&
         !wall_seconds;
}

Spend& Spend::operator+=(const Spend& o) {
  input_tokens += o.input_tokens;
  cached_tokens += o.cached_tokens;
  cache_write_tokens += o.cache_write_tokens;
  output_tokens += o.output_tokens;
  reasoning_tokens += o.reasoning_tokens;
  usd += o.usd;
  iterations += o.iterations;
  llm_calls += o.llm_calls;
  wall_seconds += o.wall_seconds;
  return *this;
}

std::string budget_kind_name(BudgetKind kind) {
  switch (kind) {
    case BudgetKind::InputTokens: return "input-tokens";
    case BudgetKind::OutputTokens: return "output-tokens";
    case BudgetKind::ReasoningTokens: return "reasoning-tokens";
    case BudgetKind::CachedTokens: return "cached-tokens";
    case BudgetKind::TotalTokens: return "total-tokens";
    case BudgetKind::Usd: return "usd";
    case BudgetKind::Iterations: return "iterations";
    case BudgetKind::WallTime: return "wall-time";
  }
  return "unknown";
}

std::string BudgetStop::reason() const { return std::string(run_level ? "run-budget:" : "budget:") + budget_kind_name(kind); }

namespace {

std::string spent_message(const char* what, double spent, double limit) {
  std::ostringstream os;
  os << what << ": " << spent << " of " << limit << " spent";
  return os.str();
}

// Budgets already used up (>= the limit), in a fixed order.
std::optional<BudgetStop> exhausted(const BudgetLimits& l, const Spend& s, bool run_level) {
  auto stop = [&](BudgetKind k, const char* what, double spent, double limit) {
    return BudgetStop{k, run_level, spent_message(what, spent, limit)};
  };
  if (l.input_tokens && s.input_tokens >= *l.input_tokens)
    return stop(BudgetKind::InputTokens, "input tokens", static_cast<double>(s.input_tokens), static_cast<double>(*l.input_tokens));
  if (l.output_tokens && s.output_tokens >= *l.output_tokens)
    return stop(BudgetKind::OutputTokens, "output tokens", static_cast<double>(s.output_tokens), static_cast<double>(*l.output_tokens));
  if (l.reasoning_tokens && s.reasoning_tokens >= *l.reasoning_tokens)
    return stop(BudgetKind::ReasoningTokens, "reasoning tokens", static_cast<double>(s.reasoning_tokens),
                static_cast<double>(*l.reasoning_tokens));
  if (l.cached_tokens && s.cached_tokens >= *l.cached_tokens)
    return stop(BudgetKind::CachedTokens, "cached tokens", static_cast<double>(s.cached_tokens), static_cast<double>(*l.cached_tokens));
  if (l.total_tokens && s.total_tokens() >= *l.total_tokens)
    return stop(BudgetKind::TotalTokens, "total tokens", static_cast<double>(s.total_tokens()), static_cast<double>(*l.total_tokens));
  if (l.usd && s.usd >= *l.usd) return stop(BudgetKind::Usd, "US dollars", s.usd, *l.usd);
  if (l.wall_seconds && s.wall_seconds >= *l.wall_seconds)
    return stop(BudgetKind::WallTime, "wall seconds", s.wall_seconds, *l.wall_seconds);
  return std::nullopt;
}

// Tightens `cap` for one level; returns a stop when the call cannot fit.
std::optional<BudgetStop> fit(const BudgetLimits& l, const Spend& s, bool run_level, int64_t prompt,
                              const std::optional<TokenPrices>& prices, int64_t min_output, std::optional<int64_t>& cap) {
  if (auto e = exhausted(l, s, run_level)) return e;
  auto tighten = [&](int64_t room) { cap = cap ? std::min(*cap, room) : room; };
  if (l.input_tokens && s.input_tokens + prompt > *l.input_tokens)
    return BudgetStop{BudgetKind::InputTokens, run_level,
                      "input tokens: the next prompt (about " + std::to_string(prompt) + ") would pass the limit of " +
                          std::to_string(*l.input_tokens) + " (" + std::to_string(s.input_tokens) + " spent)"};
  if (l.total_tokens) {
    const int64_t room = *l.total_tokens - s.total_tokens() - prompt;
    if (room < min_output)
      return BudgetStop{BudgetKind::TotalTokens, run_level,
                        "total tokens: " + std::to_string(std::max<int64_t>(room, 0)) +
                            " left after the prompt, fewer than the smallest useful answer"};
    tighten(room);
  }
  if (l.output_tokens) {
    const int64_t room = *l.output_tokens - s.output_tokens;
    if (room < min_output)
      return BudgetStop{BudgetKind::OutputTokens, run_level,
                        "output tokens: " + std::to_string(room) + " left, fewer than the smallest useful answer"};
    tighten(room);
  }
  if (l.usd && prices) {
    const double prompt_cost = static_cast<double>(prompt) * prices->input / 1e6;
    const double room_usd = *l.usd - s.usd - prompt_cost;
    if (room_usd <= 0)
      return BudgetStop{BudgetKind::Usd, run_level, "US dollars: the next prompt alone would pass the limit"};
    if (prices->output > 0) {
      const double tokens = std::floor(room_usd * 1e6 / prices->output);
      const int64_t room = tokens > 1e15 ? int64_t{1} << 50 : static_cast<int64_t>(tokens);
      if (room < min_output)
        return BudgetStop{BudgetKind::Usd, run_level,
                          "US dollars: the money left buys " + std::to_string(room) + " output tokens"};
      tighten(room);
    }
  }
  return std::nullopt;
}

}  // namespace

CallAllowance allow_call(const BudgetLimits& attempt_limits, const Spend& attempt_spend, const BudgetLimits& run_limits,
                         const Spend& run_spend, int64_t estimated_prompt_tokens, std::optional<int64_t> requested,
                         const std::optional<TokenPrices>& prices, int64_t min_output) {
  CallAllowance a;
  std::optional<int64_t> cap = requested;
  if (auto stop = fit(attempt_limits, attempt_spend, false, estimated_prompt_tokens, prices, min_output, cap)) {
    a.stop = stop;
    return a;
  }
  if (auto stop = fit(run_limits, run_spend, true, estimated_prompt_tokens, prices, min_output, cap)) {
    a.stop = stop;
    return a;
  }
  a.max_output_tokens = cap;
  return a;
}

std::optional<BudgetStop> check_iteration(const BudgetLimits& attempt_limits, const Spend& attempt_spend,
                                          const BudgetLimits& run_limits, const Spend& run_spend) {
  if (attempt_limits.iterations && attempt_spend.iterations >= *attempt_limits.iterations)
    return BudgetStop{BudgetKind::Iterations, false,
                      "iterations: " + std::to_string(attempt_spend.iterations) + " of " +
                          std::to_string(*attempt_limits.iterations) + " done"};
  if (auto e = exhausted(attempt_limits, attempt_spend, false)) return e;
  if (run_limits.iterations && run_spend.iterations >= *run_limits.iterations)
    return BudgetStop{BudgetKind::Iterations, true,
                      "iterations: " + std::to_string(run_spend.iterations) + " of " +
                          std::to_string(*run_limits.iterations) + " done in the run"};
  return exhausted(run_limits, run_spend, true);
}

void to_json(nlohmann::json& j, const BudgetLimits& b) {
  j = nlohmann::json::object();
  if (b.input_tokens) j["input_tokens"] = *b.input_tokens;
  if (b.output_tokens) j["output_tokens"] = *b.output_tokens;
  if (b.reasoning_tokens) j["reasoning_tokens"] = *b.reasoning_tokens;
  if (b.cached_tokens) j["cached_tokens"] = *b.cached_tokens;
  if (b.total_tokens) j["tokens"] = *b.total_tokens;
  if (b.usd) j["usd"] = *b.usd;
  if (b.iterations) j["iterations"] = *b.iterations;
  if (b.wall_seconds) j["wall_seconds"] = *b.wall_seconds;
}

void from_json(const nlohmann::json& j, BudgetLimits& b) {
  b = BudgetLimits{};
  if (j.contains("input_tokens")) b.input_tokens = j["input_tokens"].get<int64_t>();
  if (j.contains("output_tokens")) b.output_tokens = j["output_tokens"].get<int64_t>();
  if (j.contains("reasoning_tokens")) b.reasoning_tokens = j["reasoning_tokens"].get<int64_t>();
  if (j.contains("cached_tokens")) b.cached_tokens = j["cached_tokens"].get<int64_t>();
  if (j.contains("tokens")) b.total_tokens = j["tokens"].get<int64_t>();
  if (j.contains("usd")) b.usd = j["usd"].get<double>();
  if (j.contains("iterations")) b.iterations = j["iterations"].get<int>();
  if (j.contains("wall_seconds")) b.wall_seconds = j["wall_seconds"].get<double>();
}

void to_json(nlohmann::json& j, const Spend& s) {
  j = {{"input_tokens", s.input_tokens},     {"cached_tokens", s.cached_tokens},
       {"cache_write_tokens", s.cache_write_tokens}, {"output_tokens", s.output_tokens},
       {"reasoning_tokens", s.reasoning_tokens}, {"total_tokens", s.total_tokens()},
       {"usd", s.usd},                        {"iterations", s.iterations},
       {"llm_calls", s.llm_calls},            {"wall_seconds", s.wall_seconds}};
}

}  // namespace kgb::agent
