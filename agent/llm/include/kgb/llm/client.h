// One provider, many concurrent calls: retries with backoff, client-side rate
// limits, per-call deadlines and cancellation, usage and cost accounting.
//
//   kgb::llm::LlmClient client(io.get_executor(), *kgb::llm::provider_preset("oracle"));
//   ChatOutcome out = co_await client.chat(request);
//
// Every outcome is a value: ChatOutcome holds the response or a typed
// CallError, plus attempts, waits and tokens. Nothing expected throws.
#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "kgb/llm/cancel.h"
#include "kgb/llm/http_client.h"
#include "kgb/llm/pricing.h"
#include "kgb/llm/provider.h"
#include "kgb/llm/types.h"

namespace kgb::llm {

struct CallOptions {
  std::optional<CancelToken> cancel;
  // Earliest of this and now + ProviderConfig::call_timeout bounds the call,
  // waits and retries included.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  DeltaHandler on_delta;  // streaming requests: pieces as they arrive
};

class LlmClient {
 public:
  // The API key is read from the environment here; a missing required key
  // makes every call fail with ErrorKind::Config (the client still constructs).
  LlmClient(boost::asio::any_io_executor executor, ProviderConfig config,
            std::shared_ptr<const PriceTable> prices = nullptr);
  ~LlmClient();
  LlmClient(const LlmClient&) = delete;
  LlmClient& operator=(const LlmClient&) = delete;

  boost::asio::awaitable<ChatOutcome> chat(ChatRequest request, CallOptions options = {});

  const ProviderConfig& config() const;
  HttpClient& http();
  // The quirks in force for a model, including what the client learned from
  // rejected parameters. Call from the client's strand (http().strand()).
  ModelQuirks quirks_for(const std::string& model) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// One call on a private io_context: for command-line tools.
ChatOutcome chat_blocking(const ProviderConfig& config, ChatRequest request, CallOptions options = {},
                          std::shared_ptr<const PriceTable> prices = nullptr);

}  // namespace kgb::llm
