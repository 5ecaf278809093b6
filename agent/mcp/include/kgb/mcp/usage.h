// Token usage that an agent's own harness reports (its CLI's usage JSON, or
// the report_usage tool), read into the run store's token kinds. The server
// never sees an external agent's model calls, so these counts are the agent's
// word: they are recorded as LLM-call rows with provider "agent" and marked
// reported_by = "agent".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kgb/result.h"
#include "kgb/store/run_store.h"

namespace kgb::mcp {

struct ReportedUsage {
  store::TokenCounts tokens;       // input includes cached and cache-written prompt tokens
  std::optional<double> cost_usd;  // as the harness computed it
  std::string model;
  double api_seconds = 0;          // model time the harness reported (0: none)
  bool estimated = false;          // the harness says its counts are estimates
  nlohmann::json raw;              // the object the counts were read from
};

// Reads one usage object in any of these shapes (the first match wins):
//  - a wrapper with "usage" (Claude Code's `--output-format json` result, an
//    OpenAI or Anthropic response), with "total_cost_usd" / "cost_usd",
//    "model" and "duration_api_ms" beside it;
//  - Anthropic: input_tokens, output_tokens, cache_read_input_tokens,
//    cache_creation_input_tokens (input_tokens excludes the cache reads and
//    writes, which are added to it here);
//  - OpenAI chat: prompt_tokens, completion_tokens, prompt_tokens_details.
//    cached_tokens, completion_tokens_details.reasoning_tokens;
//  - OpenAI responses / Codex: input_tokens (cached included),
//    cached_input_tokens or input_tokens_details.cached_tokens, output_tokens,
//    reasoning_output_tokens or output_tokens_details.reasoning_tokens;
//  - this server's own names: input_tokens, output_tokens,
//    cached_input_tokens, cache_write_tokens, reasoning_tokens, cost_usd.
// Counts must be non-negative integers; an object with no token count at all
// is an error, so a wrong file is never recorded as zero tokens.
Result<ReportedUsage> parse_reported_usage(const nlohmann::json& value);

// The last JSON value of `text` that carries usage: a single JSON document, or
// JSON lines (Claude Code's stream-json ends with its cumulative result line).
Result<ReportedUsage> parse_reported_usage_text(std::string_view text);

// One report as the tool and `kgb mcp-usage --json` show it: the token kinds,
// cost_usd when given, reported_by = "agent".
nlohmann::json reported_usage_json(const ReportedUsage& usage);

// The LLM-call row of one usage report: provider "agent", status done, the
// model the harness named (else "agent"), request = {reported_by, source, raw}.
store::LlmCallRecord usage_call_record(const std::string& run_id, int64_t attempt_id, int iteration, int step,
                                       const ReportedUsage& usage, const std::string& source, const nlohmann::json& raw);

// Attaches usage to a recorded attempt of `store` (a finished one too): an
// LLM-call row (provider "agent", reported_by "agent") on the attempt's last
// iteration (a fresh "no-code" iteration when it has none), and the tokens and
// dollars added to that iteration and to the attempt. `source` says how it
// arrived ("import", "report_usage"); `raw` is kept with the row. An attempt
// still running belongs to a live server session and is refused: its usage
// goes through that session's report_usage tool.
struct UsageRecorded {
  int iteration = 0, step = 0;
  store::TokenCounts attempt_tokens;  // the attempt's totals afterwards
  double attempt_cost_usd = 0;
};
Result<UsageRecorded> record_reported_usage(store::RunStore& store, int64_t attempt_id, const ReportedUsage& usage,
                                            const std::string& source, const nlohmann::json& raw);

}  // namespace kgb::mcp
