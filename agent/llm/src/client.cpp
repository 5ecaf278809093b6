#include "kgb/llm/client.h"

#include <map>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include "kgb/llm/rate_limiter.h"
#include "kgb/llm/secrets.h"
#include "kgb/llm/sse.h"

namespace kgb::llm {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using std::chrono::duration_cast;
using std::chrono::milliseconds;

namespace {

milliseconds since(Clock::time_point start) { return duration_cast<milliseconds>(Clock::now() - start); }

CallError make_call_error(ErrorKind kind, std::string message) {
  CallError error;
  error.kind = kind;
  error.message = std::move(message);
  return error;
}

// Sleeps on the current strand; returns false when cancelled first.
asio::awaitable<bool> sleep_for(milliseconds wait, const std::optional<CancelToken>& cancel) {
  auto executor = co_await asio::this_coro::executor;
  auto timer = std::make_shared<asio::steady_timer>(executor, wait);
  auto cancelled = std::make_shared<bool>(false);
  uint64_t handle = 0;
  if (cancel)
    handle = cancel->on_cancel([timer, cancelled, executor] {
      asio::post(executor, [timer, cancelled] {
        *cancelled = true;
        timer->cancel();
      });
    });
  co_await timer->async_wait(asio::as_tuple(asio::use_awaitable));
  if (cancel && handle) cancel->remove(handle);
  co_return !*cancelled;
}

}  // namespace

struct LlmClient::Impl {
  Impl(asio::any_io_executor executor, ProviderConfig cfg, std::shared_ptr<const PriceTable> price_table)
      : config(std::move(cfg)),
        http(std::move(executor), config.http),
        limiter(http.strand(), config.limits),
        api(make_provider_api(config)),
        prices(std::move(price_table)) {
    auto key_result = ApiKey::from_environment(config.api_key_env, config.api_key_required);
    if (key_result) key = std::move(key_result.value());
    else key_error = key_result.error().message;
    auto url = Url::parse(config.base_url);
    if (url) base_url = std::move(url.value());
    else url_error = "provider " + config.name + " base URL: " + url.error().message;
  }

  ModelQuirks quirks_for(const std::string& model) const {
    if (auto it = learned.find(model); it != learned.end()) return it->second;
    return config.quirks ? *config.quirks : default_quirks(config.api, model);
  }

  asio::awaitable<ChatOutcome> run(ChatRequest request, CallOptions options);

  ProviderConfig config;
  HttpClient http;
  RateLimiter limiter;
  std::unique_ptr<ProviderApi> api;
  std::shared_ptr<const PriceTable> prices;
  ApiKey key;
  std::string key_error;
  Url base_url;
  std::string url_error;
  std::map<std::string, ModelQuirks> learned;  // strand only
};

asio::awaitable<ChatOutcome> LlmClient::Impl::run(ChatRequest request, CallOptions options) {
  const auto start = Clock::now();
  ChatOutcome outcome;
  CallStats& stats = outcome.stats;
  const Clock::time_point deadline =
      std::min(options.deadline, config.call_timeout.count() > 0 ? start + config.call_timeout : Clock::time_point::max());

  auto fail = [&](CallError error) {
    error.message = key.redact(std::move(error.message));
    outcome.error = std::move(error);
    stats.elapsed = since(start);
    if (prices && outcome.usage.reported) outcome.cost_usd = prices->cost(request.model, outcome.usage);
    spdlog::debug("llm {} {}: failed after {} attempt(s): {} {}", config.name, request.model, stats.attempts,
                  to_string(outcome.error->kind), outcome.error->message);
    return std::move(outcome);
  };

  if (!key_error.empty()) co_return fail(make_call_error(ErrorKind::Config, key_error));
  if (!url_error.empty()) co_return fail(make_call_error(ErrorKind::Config, url_error));
  if (request.model.empty()) co_return fail(make_call_error(ErrorKind::Config, "no model given"));

  try {
    Backoff backoff(config.retry);
    ModelQuirks quirks = quirks_for(request.model);
    milliseconds waited_before{0};
    const int64_t estimate = estimate_prompt_tokens(request) + request.max_output_tokens.value_or(0);

    for (;;) {
      if (options.cancel && options.cancel->cancelled())
        co_return fail(make_call_error(ErrorKind::Cancelled, "cancelled"));

      RateLimiter::Admission admission = co_await limiter.acquire(estimate, deadline, options.cancel);
      stats.rate_limit_wait += admission.waited;
      if (!admission.permit) {
        if (admission.cancelled) co_return fail(make_call_error(ErrorKind::Cancelled, "cancelled while waiting for the rate limiter"));
        co_return fail(make_call_error(ErrorKind::RateLimited,
                                       "the client-side rate limit admits no call before the deadline"));
      }

      const WireRequest wire = api->build(request, quirks);
      HttpRequest http_request;
      http_request.method = "POST";
      http_request.url = base_url.with_path(wire.path);
      http_request.headers = wire.headers;
      if (!key.empty()) api->add_auth(key.reveal(), http_request.headers);
      http_request.body = wire.body;

      const auto attempt_start = Clock::now();
      HttpCallOptions http_options;
      http_options.deadline = deadline;
      http_options.cancel = options.cancel;

      // Streaming: bytes -> SSE events -> provider decoder -> caller's deltas.
      std::unique_ptr<StreamDecoder> decoder;
      std::optional<SseParser> sse;
      std::string raw_prefix;  // in case the server answers a stream request with plain JSON
      bool emitted = false;
      std::optional<milliseconds> first_token;
      DeltaHandler emit = [&](const StreamDelta& delta) {
        if (!first_token) first_token = since(attempt_start);
        emitted = true;
        if (options.on_delta) options.on_delta(delta);
      };
      if (request.stream) {
        decoder = api->stream_decoder();
        sse.emplace([&](const SseEvent& event) { return decoder->on_event(event, emit); });
        http_options.on_body = [&](std::string_view chunk) {
          if (sse->events_dispatched() == 0 && raw_prefix.size() < 65536) raw_prefix.append(chunk);
          return sse->feed(chunk);
        };
      }

      HttpExchange exchange = co_await http.send(std::move(http_request), std::move(http_options));
      ++stats.attempts;
      AttemptRecord record;
      record.http_status = exchange.response.status;
      record.waited_before = waited_before;
      record.connection_reused = exchange.connection_reused;

      ParsedReply reply;
      const int status = exchange.response.status;
      if (status == 0) {
        reply.error = exchange.error ? *exchange.error : make_call_error(ErrorKind::Network, "no response");
      } else if (status < 200 || status > 299) {
        reply.error = api->parse_error(exchange.response);
        if ((status == 401 || status == 403) && key.empty() && !config.api_key_env.empty())
          reply.error->message += " (no API key was sent: set " + config.api_key_env + ")";
        if (exchange.error && exchange.error->kind == ErrorKind::Cancelled) reply.error = exchange.error;
      } else if (request.stream && sse->events_dispatched() == 0 &&
                 exchange.response.header("content-type").find("json") != std::string_view::npos) {
        if (exchange.error) reply.error = exchange.error;
        else reply = api->parse_response(raw_prefix);
      } else if (request.stream) {
        sse->finish();
        reply = decoder->finish(exchange.body_complete && !exchange.error);
        // A transport failure explains a cut stream better than the decoder,
        // except when the decoder stopped the read itself.
        if (exchange.error && !exchange.stopped_by_sink) {
          reply.error = exchange.error;
          reply.error->http_status = status;
        }
      } else if (exchange.error) {
        reply.error = exchange.error;
        reply.error->http_status = status;
      } else {
        reply = api->parse_response(exchange.response.body);
      }

      if (reply.response.usage.reported) outcome.usage += reply.response.usage;
      admission.permit.settle(reply.response.usage.reported ? reply.response.usage.total_tokens() : estimate);
      admission.permit = {};  // free the concurrency slot before any backoff sleep
      record.duration = since(attempt_start);
      stats.time_to_first_token = first_token;

      if (!reply.error) {
        ChatResponse response = std::move(reply.response);
        for (HttpHeader& h : exchange.response.headers) response.headers.emplace_back(std::move(h.name), std::move(h.value));
        if (prices) {
          response.cost_usd = prices->cost(request.model, response.usage);
          if (outcome.usage.reported) outcome.cost_usd = prices->cost(request.model, outcome.usage);
        }
        stats.attempt_log.push_back(std::move(record));
        stats.elapsed = since(start);
        spdlog::debug("llm {} {}: ok after {} attempt(s), {} ms, {} in / {} out tokens", config.name, request.model,
                      stats.attempts, stats.elapsed.count(), response.usage.input_tokens, response.usage.output_tokens);
        outcome.response = std::move(response);
        co_return std::move(outcome);
      }

      CallError error = std::move(*reply.error);
      error.message = key.redact(std::move(error.message));
      record.error = error;
      stats.attempt_log.push_back(std::move(record));
      spdlog::debug("llm {} {}: attempt {} failed: {} (HTTP {}) {}", config.name, request.model, stats.attempts,
                    to_string(error.kind), error.http_status, error.message);

      // A server that rejects a sampling or length parameter for this model:
      // adapt once per parameter, remember it for the model, resend at once.
      if (std::string param = rejected_parameter(error); !param.empty() && stats.parameter_fixups < 3) {
        bool changed = false;
        if ((param == "temperature" || param == "top_p") && quirks.temperature_supported &&
            (request.temperature || request.top_p)) {
          quirks.temperature_supported = false;
          changed = true;
        } else if (param == "max_tokens" && !quirks.max_completion_tokens && request.max_output_tokens) {
          quirks.max_completion_tokens = true;
          changed = true;
        }
        if (changed) {
          learned[request.model] = quirks;
          ++stats.parameter_fixups;
          waited_before = milliseconds{0};
          continue;
        }
      }

      bool retry = error.retryable;
      if (error.kind == ErrorKind::Truncated && !config.retry.retry_truncated) retry = false;
      if (error.kind == ErrorKind::MidStream && !config.retry.retry_mid_stream) retry = false;
      if (!retry || stats.retries >= config.retry.max_retries) co_return fail(std::move(error));

      const milliseconds wait = backoff.delay(stats.retries + 1, error.retry_after);
      if (error.http_status == 429 && error.retry_after) limiter.pause_until(Clock::now() + wait);
      if (Clock::now() + wait >= deadline) {
        error.message += " (no time left before the deadline to retry)";
        co_return fail(std::move(error));
      }
      if (emitted && options.on_delta) options.on_delta(StreamDelta::of(StreamDelta::Kind::Restart));
      if (!co_await sleep_for(wait, options.cancel))
        co_return fail(make_call_error(ErrorKind::Cancelled, "cancelled while waiting to retry"));
      ++stats.retries;
      stats.backoff_wait += wait;
      waited_before = wait;
    }
  } catch (const boost::system::system_error& e) {
    if (e.code() == asio::error::operation_aborted) co_return fail(make_call_error(ErrorKind::Cancelled, "cancelled"));
    co_return fail(make_call_error(ErrorKind::Network, e.what()));
  }
}

LlmClient::LlmClient(asio::any_io_executor executor, ProviderConfig config, std::shared_ptr<const PriceTable> prices)
    : impl_(std::make_shared<Impl>(std::move(executor), std::move(config), std::move(prices))) {}

LlmClient::~LlmClient() = default;

const ProviderConfig& LlmClient::config() const { return impl_->config; }
HttpClient& LlmClient::http() { return impl_->http; }
ModelQuirks LlmClient::quirks_for(const std::string& model) const { return impl_->quirks_for(model); }

asio::awaitable<ChatOutcome> LlmClient::chat(ChatRequest request, CallOptions options) {
  std::shared_ptr<Impl> impl = impl_;
  co_return co_await asio::co_spawn(impl->http.strand(), impl->run(std::move(request), std::move(options)),
                                    asio::use_awaitable);
}

ChatOutcome chat_blocking(const ProviderConfig& config, ChatRequest request, CallOptions options,
                          std::shared_ptr<const PriceTable> prices) {
  asio::io_context io;
  LlmClient client(io.get_executor(), config, std::move(prices));
  ChatOutcome result;
  std::exception_ptr failure;
  asio::co_spawn(io, client.chat(std::move(request), std::move(options)),
                 [&](std::exception_ptr e, ChatOutcome outcome) {
                   failure = e;
                   result = std::move(outcome);
                 });
  io.run();
  if (failure) std::rethrow_exception(failure);
  return result;
}

}  // namespace kgb::llm
