// One chat request as the oracle reads it, whatever the wire dialect: the
// OpenAI chat completions body, the Anthropic messages body and the OpenAI
// Responses body all become a Query (turns, offered tools, the tool choice,
// output limits). Everything the oracle answers is decided from a Query alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/llm/types.h"
#include "kgb/result.h"

namespace kgb::oracle {

enum class Dialect { OpenAIChat, Anthropic, OpenAIResponses };

// The tool types are the LLM client's: a call as the assistant wrote it (its
// arguments may be cut short), a tool with its JSON Schema, the tool choice.
using QueryCall = llm::ToolCall;
using QueryTool = llm::ToolSpec;
using ToolDemand = llm::ToolChoice;

struct QueryTurn {
  enum class Role { User, Assistant, Tool };
  Role role = Role::User;
  std::string text;              // the text parts, joined by newlines
  std::vector<QueryCall> calls;  // assistant turns: the calls made
  std::string call_id;           // tool turns: the call this result answers
};

struct Query {
  Dialect dialect = Dialect::OpenAIChat;
  std::string model;
  std::string system;
  std::vector<QueryTurn> turns;
  std::vector<QueryTool> tools;
  ToolDemand tool_choice;
  std::optional<int64_t> max_tokens;  // output cap in (estimated) tokens
  int choices = 1;                    // OpenAI chat `n`
  std::vector<std::string> stop;      // stop sequences
  bool stream = false;
  bool include_usage = false;         // OpenAI chat stream_options.include_usage
  std::string user;                   // OpenAI `user` / Anthropic metadata.user_id
};

// Reads a request body. Errors (code "oracle.bad-request") carry the message
// a client sees with HTTP 400, naming the offending field.
kgb::Result<Query> parse_query(Dialect dialect, const nlohmann::json& body);

// Estimated prompt tokens of a query (system, turns, calls, tool schemas):
// one token per 4 bytes plus a few per turn, as `estimate_tokens`.
int64_t estimate_query_tokens(const Query& query);

}  // namespace kgb::oracle
