// What the oracle says, decided from the request alone (no memory between
// requests), so a client that resends a conversation gets the same answer and
// a killed-and-resumed agent run ends exactly as an uninterrupted one.
//
// A kernel prompt names a task and a platform ("Task: aten/softmax",
// "Platform: cpu-x86_64"; see prompt.h). Then:
//
// - Without tools (or tool_choice none) the answer is prose plus one fenced
//   block. Its attempt number is 1 + the assistant turns the conversation
//   holds (+ the earlier attempts a line "[N earlier attempts ... left out]"
//   says were dropped from it). Attempts 1..compile_error_attempts carry a
//   compile error, the next wrong_result_attempts a wrong result, later ones
//   the bundled solution.
// - With the agent's tools offered (any of lint, compile, run, profile,
//   submit, each taking the complete file as `source`) the oracle works as an
//   agent: draft 1 goes through the tools in that order, one call per turn; a
//   tool result that reports a failure ("outcome: compile-error", ...) makes
//   it write the next draft and call the same tool again; a passing submit
//   ends with a short text. Draft k carries the fault of attempt k.
// - Other tools: with tool_choice required (or any) or naming a function, the
//   oracle calls it with arguments made from its JSON Schema; otherwise it
//   answers in prose, quoting the last tool result when there is one.
//
// Output limits are honoured: stop sequences end the text (finish "stop"),
// max_tokens cuts reasoning, text and call arguments in that order at
// 4 bytes a token (finish "length"; a call cut short is marked incomplete).
// `n` repeats the choice.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kgb/oracle/catalog.h"
#include "kgb/oracle/query.h"

namespace kgb::oracle {

struct FaultRates {
  double http_429 = 0;    // each in [0, 1], their sum at most 1
  double http_500 = 0;
  double mid_stream = 0;  // streaming requests only
  double truncate = 0;
};

struct OracleOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8765;  // 0: any free port (see OracleServer::port())
  uint64_t seed = 1;
  int compile_error_attempts = 0;
  int wrong_result_attempts = 0;
  std::chrono::milliseconds latency_min{0};  // before answering, uniform in [min, max]
  std::chrono::milliseconds latency_max{0};
  std::chrono::milliseconds chunk_delay{0};  // between streamed chunks
  std::size_t chunk_chars = 64;              // text per streamed chunk
  FaultRates faults;
  std::chrono::milliseconds retry_after{200};  // sent with injected 429s
  bool reasoning = false;                      // add a short reasoning text (and reasoning_tokens)
  std::string model = "oracle";
  int threads = 1;
  std::size_t max_request_bytes = 16u << 20;
};

struct ReplyCall {
  std::string id;
  std::string name;
  std::string arguments;  // JSON text; cut short when !complete
  bool complete = true;
};

struct Reply {
  enum class Finish { Stop, StopSequence, Length, ToolCalls };

  std::string reasoning;  // empty unless OracleOptions::reasoning
  std::string text;
  std::vector<ReplyCall> calls;
  Finish finish = Finish::Stop;
  std::string stop_sequence;  // Finish::StopSequence: the one that matched

  int64_t prompt_tokens = 0;      // estimates (one token per 4 bytes)
  int64_t completion_tokens = 0;  // of what was sent, reasoning included
  int64_t reasoning_tokens = 0;

  // What the oracle decided, for headers, statistics and tests.
  bool known = false;          // a task and platform the catalog has
  std::string task_id, platform;
  int attempt = 0;             // the attempt (or draft) the code belongs to; 0: no code
  std::string fault = "none";  // "none", "compile_error", "wrong_result"
  std::string note;            // e.g. why a wrong result fell back to a compile error
  std::string action;          // "code", "tool:<name>", "tool-call", "done", "text"
};

enum class HttpFault { None, TooManyRequests, ServerError, MidStream, Truncate };

class OracleBrain {
 public:
  OracleBrain(OracleOptions options, std::shared_ptr<const SolutionCatalog> catalog);
  ~OracleBrain();

  // The answer to a request: a pure function of the query and the options.
  Reply reply(const Query& query) const;

  // Injected HTTP failures and latency. Unlike answers these are transient:
  // the draw depends on the seed, the request body and how often that body
  // was seen before, so a retry of a failed request draws anew.
  struct Draw {
    HttpFault fault = HttpFault::None;
    std::chrono::milliseconds latency{0};
  };
  Draw draw(std::string_view request_body, bool stream);

  const OracleOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kgb::oracle
