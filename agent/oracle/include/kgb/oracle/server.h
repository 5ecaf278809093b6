// The `oracle` model server: an OpenAI-compatible (and Anthropic-compatible)
// HTTP server that answers kernel-generation prompts with the bundled
// solution of the task and platform the prompt names, and drives the agent's
// tools when they are offered (brain.h says what it answers and why). It is
// the offline model for demos and the test double for a paid API:
//
// - POST /v1/chat/completions (OpenAI chat), POST /v1/responses (OpenAI
//   Responses) and POST /v1/messages (Anthropic), streaming (SSE) and not,
//   with tool calls, max_tokens, stop sequences and n; usage is estimated and
//   labelled so (usage.estimated = true, header x-kgb-tokens-estimated: true);
// - POST /v1/messages/count_tokens; GET /v1/models and /v1/models/{id} (in
//   Anthropic's shape when the request has an anthropic-version header);
//   GET /health; GET /kgb/stats (counters as JSON);
// - errors in each dialect's own shape: OpenAI {"error": {...}}, Anthropic
//   {"type": "error", "error": {...}} on /v1/messages* and for requests that
//   carry anthropic-version.
//
// Faults, all seeded: the answers' compile errors and wrong results follow
// the attempt the request itself is at (brain.h), so they do not depend on
// what the server saw before. Independently each request draws an HTTP
// failure at the given rates: 429 with retry-after and retry-after-ms, 500,
// an error event mid-stream (streaming requests), or a cut body (the
// connection closes half way); a resent body draws anew.
// Response headers x-kgb-oracle-attempt / -fault / -action / -note say what
// was done.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "kgb/oracle/brain.h"
#include "kgb/oracle/catalog.h"
#include "kgb/oracle/prompt.h"
#include "kgb/result.h"

namespace kgb::oracle {

using namespace std::chrono_literals;

struct OracleStats {
  int64_t requests = 0;          // chat requests received (valid ones)
  int64_t answered = 0;          // complete answers sent
  int64_t injected_429 = 0;
  int64_t injected_500 = 0;
  int64_t injected_mid_stream = 0;
  int64_t injected_truncated = 0;
  int64_t compile_error_faults = 0;
  int64_t wrong_result_faults = 0;
  int64_t tool_call_answers = 0;  // answers that called a tool
  int64_t unknown_prompts = 0;   // no known task/platform: polite text reply
  int64_t prompt_tokens = 0;     // summed over complete answers
  int64_t completion_tokens = 0;
};

class OracleServer {
 public:
  OracleServer(OracleOptions options, std::shared_ptr<const SolutionCatalog> catalog);
  ~OracleServer();
  OracleServer(const OracleServer&) = delete;
  OracleServer& operator=(const OracleServer&) = delete;

  // Binds and starts serving on `options.threads` threads of its own.
  kgb::Result<uint16_t> start();
  void stop();
  // From now on SIGINT and SIGTERM stop the server (instead of the process).
  void stop_on_signals();
  // Blocks until stopped (by stop() from another thread or by a signal).
  void wait();

  uint16_t port() const;
  std::string base_url() const;  // http://host:port/v1
  OracleStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kgb::oracle
