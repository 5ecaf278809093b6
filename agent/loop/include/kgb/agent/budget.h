// Budgets per task attempt and per run (DESIGN 3.6): tokens by kind, money,
// iterations and wall time. The loop asks the ledger before every LLM call and
// before every new iteration; a call that would overrun a token or money
// budget gets its max_tokens capped to what remains, and a call that cannot
// fit at all is not made (the attempt stops with the budget as its reason).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace kgb::agent {

// Absent = unlimited.
struct BudgetLimits {
  std::optional<int64_t> input_tokens;      // prompt tokens, cached ones included
  std::optional<int64_t> output_tokens;     // generated tokens, reasoning included
  std::optional<int64_t> reasoning_tokens;
  std::optional<int64_t> cached_tokens;     // prompt tokens read from a provider cache
  std::optional<int64_t> total_tokens;      // input + output
  std::optional<double> usd;
  std::optional<int> iterations;
  std::optional<double> wall_seconds;

  bool unlimited() const;
};

struct Spend {
  int64_t input_tokens = 0;
  int64_t cached_tokens = 0;
  int64_t cache_write_tokens = 0;
  int64_t output_tokens = 0;
  int64_t reasoning_tokens = 0;
  double usd = 0;
  int iterations = 0;
  int llm_calls = 0;
  double wall_seconds = 0;

  int64_t total_tokens() const { return input_tokens + output_tokens; }
  Spend& operator+=(const Spend& other);
};

// Which budget ended the work, for records and for people.
enum class BudgetKind { InputTokens, OutputTokens, ReasoningTokens, CachedTokens, TotalTokens, Usd, Iterations, WallTime };
std::string budget_kind_name(BudgetKind kind);  // "input-tokens", ..., "usd", "iterations", "wall-time"

struct BudgetStop {
  BudgetKind kind;
  bool run_level = false;  // the run's budget, not the attempt's
  std::string message;     // "output tokens: 4000 of 4000 spent"
  std::string reason() const;  // "budget:output-tokens" or "run-budget:output-tokens"
};

// Prices of the model in US dollars per million tokens (absent: unknown).
struct TokenPrices {
  double input = 0, cached_input = 0, output = 0, cache_write = 0;
};

// What one prospective call may use.
struct CallAllowance {
  std::optional<BudgetStop> stop;           // set: do not make the call
  std::optional<int64_t> max_output_tokens; // the cap to send (already min'ed with the requested cap)
};

// Decides whether a call with this prompt estimate fits in the remaining
// budgets, and the largest max_tokens that keeps every budget (tokens of each
// kind, money at the model's prices) from being exceeded. `requested` is the
// configured max_tokens (absent: unlimited). `min_output` is the smallest cap
// worth sending: below it the call is refused.
CallAllowance allow_call(const BudgetLimits& attempt_limits, const Spend& attempt_spend, const BudgetLimits& run_limits,
                         const Spend& run_spend, int64_t estimated_prompt_tokens, std::optional<int64_t> requested,
                         const std::optional<TokenPrices>& prices, int64_t min_output = 16);

// Whether another iteration may start (iterations and wall time, and any
// budget already spent).
std::optional<BudgetStop> check_iteration(const BudgetLimits& attempt_limits, const Spend& attempt_spend,
                                          const BudgetLimits& run_limits, const Spend& run_spend);

void to_json(nlohmann::json& j, const BudgetLimits& b);
void from_json(const nlohmann::json& j, BudgetLimits& b);
void to_json(nlohmann::json& j, const Spend& s);

}  // namespace kgb::agent
