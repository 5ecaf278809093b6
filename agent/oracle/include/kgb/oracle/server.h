// The `oracle` model server: an OpenAI-compatible (and Anthropic-compatible)
// HTTP server that answers kernel-generation prompts with the bundled
// solution of the task and platform the prompt names. It is the offline model
// for demos and the test double for a paid API:
//
// - POST /v1/chat/completions (OpenAI) and POST /v1/messages (Anthropic),
//   streaming (SSE) and not, with usage (estimated, and labelled so:
//   usage.estimated = true and the header x-kgb-tokens-estimated: true);
// - GET /v1/models, GET /health, GET /kgb/stats (counters as JSON).
//
// Attempts: counted per (session, task, platform). The session is the
// X-KGB-Session header, else the OpenAI "user" field, else Anthropic
// metadata.user_id, else empty (shared by everyone). Only answers that reach
// the client whole count: an injected HTTP failure leaves the count as it was.
//
// Faults, all seeded: the first `compile_error_attempts` answers of a task
// carry a compile error, the next `wrong_result_attempts` a wrong result
// (both mutations of the real solution; see mutate.h). Independently each
// request draws an HTTP failure at the given rates: 429 with retry-after and
// retry-after-ms, 500, an error event mid-stream (streaming requests), or a
// cut body (the connection closes half way). The draw for a request depends on
// the seed, the request body and how often that same body was seen before,
// so it does not depend on the order in which concurrent requests arrive.
// Response headers x-kgb-oracle-attempt / -fault / -note say what was done.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "kgb/oracle/catalog.h"
#include "kgb/oracle/prompt.h"
#include "kgb/result.h"

namespace kgb::oracle {

using namespace std::chrono_literals;

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

struct OracleStats {
  int64_t requests = 0;          // chat requests received
  int64_t answered = 0;          // complete answers sent
  int64_t injected_429 = 0;
  int64_t injected_500 = 0;
  int64_t injected_mid_stream = 0;
  int64_t injected_truncated = 0;
  int64_t compile_error_faults = 0;
  int64_t wrong_result_faults = 0;
  int64_t unknown_prompts = 0;   // no known task/platform: polite text reply
  int64_t prompt_tokens = 0;     // summed over complete answers
  int64_t completion_tokens = 0;
};

// What the oracle says to one prompt (no HTTP involved).
struct AnswerPlan {
  bool known = false;      // a task and platform the catalog has
  std::string text;        // prose plus one fenced code block (or a polite refusal)
  std::string reasoning;   // empty unless OracleOptions::reasoning
  std::string fault = "none";  // "none", "compile_error", "wrong_result"
  std::string note;        // e.g. why a wrong result fell back to a compile error
  int attempt = 0;         // 1-based, for (session, task, platform)
  std::string task_id, platform;
};

enum class HttpFault { None, TooManyRequests, ServerError, MidStream, Truncate };

// The deterministic part of the oracle, shared by the server threads.
class OracleBrain {
 public:
  OracleBrain(OracleOptions options, std::shared_ptr<const SolutionCatalog> catalog);
  ~OracleBrain();

  // `commit`: count this as an attempt (false for answers an injected failure will cut).
  AnswerPlan answer(const std::string& session, const PromptFacts& facts, bool commit);

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
