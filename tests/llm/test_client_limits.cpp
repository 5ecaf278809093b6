// Client-side limits, deadlines, cancellation and connection reuse.
#include <doctest/doctest.h>

#include <cstdlib>
#include <thread>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "kgb/llm/client.h"
#include "run_async.h"
#include "scripted_server.h"

using namespace kgb::llm;
using namespace std::chrono_literals;
using kgb::test::RecordedRequest;
using kgb::test::Reply;
using kgb::test::ScriptedServer;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

ProviderConfig config_for(const ScriptedServer& server) {
  ProviderConfig c;
  c.name = "scripted";
  c.api = ApiKind::OpenAI;
  c.base_url = server.base_url();
  c.api_key_required = false;
  c.http.proxy = ProxySettings::none();
  c.retry.initial_backoff = 10ms;
  c.retry.jitter = 0;
  c.call_timeout = 20s;
  return c;
}

ChatRequest request(int64_t max_tokens = 16) {
  ChatRequest r;
  r.model = "m";
  r.messages.push_back(Message::user("hi"));
  r.max_output_tokens = max_tokens;
  return r;
}

std::string ok_body(int prompt = 3, int completion = 2) {
  return json{{"choices", {{{"index", 0}, {"finish_reason", "stop"}, {"message", {{"content", "ok"}}}}}},
              {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", completion}}}}
      .dump();
}

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

}  // namespace

TEST_CASE("limits: concurrency cap holds calls back") {
  ScriptedServer server([](const RecordedRequest&, int) {
    Reply r = Reply::json(200, ok_body());
    r.delay = 80ms;
    return r;
  });
  ProviderConfig config = config_for(server);
  config.limits.max_concurrent = 2;
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  std::vector<boost::asio::awaitable<ChatOutcome>> calls;
  for (int i = 0; i < 6; ++i) calls.push_back(client.chat(request()));
  const auto start = Clock::now();
  auto outcomes = kgb::test::run_all(io, std::move(calls));
  const double elapsed = ms_since(start);
  for (const auto& o : outcomes) CHECK(o.ok());
  CHECK(server.max_concurrent() == 2);
  CHECK(elapsed >= 3 * 80);
  int waited = 0;
  for (const auto& o : outcomes) waited += o.stats.rate_limit_wait > 20ms;
  CHECK(waited >= 4);
}

TEST_CASE("limits: requests per minute spread calls out") {
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); });
  ProviderConfig config = config_for(server);
  config.limits.requests_per_minute = 1200;  // 20 a second
  config.limits.request_burst = 1;           // no burst: one every 50 ms
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  std::vector<boost::asio::awaitable<ChatOutcome>> calls;
  for (int i = 0; i < 6; ++i) calls.push_back(client.chat(request()));
  auto outcomes = kgb::test::run_all(io, std::move(calls));
  for (const auto& o : outcomes) CHECK(o.ok());
  auto requests = server.requests();
  REQUIRE(requests.size() == 6);
  const double span = std::chrono::duration<double, std::milli>(requests.back().arrived - requests.front().arrived).count();
  // The limiter admits one call every 50 ms; arrival jitter on a busy machine
  // can only shorten the first gap a little, never the sum much.
  CHECK(span >= 200);
}

TEST_CASE("limits: tokens per minute settle on actual usage") {
  // 60000 tokens a minute = 1000 a second. The first call reserves about its
  // max_output_tokens and reports a total equal to the whole bucket; the
  // second, needing ~300 tokens, must wait about 0.3 s for the refill.
  ScriptedServer server([](const RecordedRequest& r, int index) {
    return Reply::json(200, index == 0 ? ok_body(100, 59900) : ok_body(3, 2));
  });
  ProviderConfig config = config_for(server);
  config.limits.tokens_per_minute = 60000;
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  ChatOutcome first = kgb::test::run_one(io, client.chat(request(59000)));
  REQUIRE(first.ok());
  CHECK(first.stats.rate_limit_wait < 50ms);
  ChatOutcome second = kgb::test::run_one(io, client.chat(request(290)));
  REQUIRE(second.ok());
  CHECK(second.stats.rate_limit_wait >= 200ms);
  CHECK(second.stats.rate_limit_wait < 1500ms);
}

TEST_CASE("limits: the limiter gives up at the deadline with RateLimited") {
  ScriptedServer server([](const RecordedRequest&, int) {
    Reply r = Reply::json(200, ok_body());
    r.delay = 300ms;
    return r;
  });
  ProviderConfig config = config_for(server);
  config.limits.max_concurrent = 1;
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  CallOptions short_deadline;
  short_deadline.deadline = Clock::now() + 100ms;
  std::vector<boost::asio::awaitable<ChatOutcome>> calls;
  calls.push_back(client.chat(request()));
  calls.push_back(client.chat(request(), short_deadline));
  auto outcomes = kgb::test::run_all(io, std::move(calls));
  CHECK(outcomes[0].ok());
  REQUIRE_FALSE(outcomes[1].ok());
  CHECK(outcomes[1].error->kind == ErrorKind::RateLimited);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("deadlines: the overall call deadline ends a hung request") {
  ScriptedServer server([](const RecordedRequest&, int) {
    Reply r;
    r.hang = true;
    return r;
  });
  ProviderConfig config = config_for(server);
  config.call_timeout = 300ms;
  const auto start = Clock::now();
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  ChatOutcome out = kgb::test::run_one(io, client.chat(request()));
  const double elapsed = ms_since(start);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->kind == ErrorKind::Deadline);
  CHECK_FALSE(out.error->retryable);
  CHECK(out.stats.attempts == 1);
  CHECK(elapsed >= 290);
  CHECK(elapsed < 2000);
}

TEST_CASE("deadlines: a per-operation timeout is retried, each attempt bounded") {
  ScriptedServer server([](const RecordedRequest&, int index) {
    if (index < 2) {
      Reply r;
      r.hang = true;
      return r;
    }
    return Reply::json(200, ok_body());
  });
  ProviderConfig config = config_for(server);
  config.http.timeouts.response_headers = 150ms;
  const auto start = Clock::now();
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  ChatOutcome out = kgb::test::run_one(io, client.chat(request()));
  REQUIRE(out.ok());
  CHECK(out.stats.attempts == 3);
  CHECK(out.stats.attempt_log[0].error->kind == ErrorKind::Timeout);
  CHECK(ms_since(start) >= 300);
}

TEST_CASE("deadlines: a stream that goes silent hits the read-idle timeout") {
  ScriptedServer server([](const RecordedRequest&, int) {
    Reply r = Reply::sse({kgb::test::sse_event(R"({"choices":[{"index":0,"delta":{"content":"a"}}]})"),
                          kgb::test::sse_event(R"({"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]})")},
                         600ms);
    return r;
  });
  ProviderConfig config = config_for(server);
  config.http.timeouts.read_idle = 150ms;
  config.retry.max_retries = 0;
  ChatRequest r = request();
  r.stream = true;
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  ChatOutcome out = kgb::test::run_one(io, client.chat(r));
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->kind == ErrorKind::Timeout);
  CHECK(out.error->http_status == 200);
}

TEST_CASE("cancellation: from another thread, during the request and during backoff") {
  SUBCASE("while waiting for the answer") {
    ScriptedServer server([](const RecordedRequest&, int) {
      Reply r;
      r.hang = true;
      return r;
    });
    CancelToken token;
    std::thread canceller([token, &server]() mutable {
      while (server.requests().empty()) std::this_thread::sleep_for(5ms);
      std::this_thread::sleep_for(100ms);
      token.cancel();
    });
    CallOptions options;
    options.cancel = token;
    const auto start = Clock::now();
    boost::asio::io_context io;
    LlmClient client(io.get_executor(), config_for(server));
    ChatOutcome out = kgb::test::run_one(io, client.chat(request(), options));
    canceller.join();
    REQUIRE_FALSE(out.ok());
    CHECK(out.error->kind == ErrorKind::Cancelled);
    CHECK(ms_since(start) < 1000);
  }
  SUBCASE("while sleeping before a retry") {
    ScriptedServer server([](const RecordedRequest&, int) {
      Reply r = Reply::json(429, R"({"error":{"message":"wait","type":"rate_limit_error"}})");
      r.headers.push_back({"retry-after", "10"});
      return r;
    });
    ProviderConfig config = config_for(server);
    config.retry.max_retry_after = 10s;
    CancelToken token;
    std::thread canceller([token, &server]() mutable {
      // Once the 429 is on its way the client is (about to be) asleep for 10 s.
      while (server.requests().empty()) std::this_thread::sleep_for(5ms);
      std::this_thread::sleep_for(150ms);
      token.cancel();
    });
    CallOptions options;
    options.cancel = token;
    const auto start = Clock::now();
    boost::asio::io_context io;
    LlmClient client(io.get_executor(), config);
    ChatOutcome out = kgb::test::run_one(io, client.chat(request(), options));
    canceller.join();
    REQUIRE_FALSE(out.ok());
    CHECK(out.error->kind == ErrorKind::Cancelled);
    CHECK(out.stats.attempts == 1);
    CHECK(out.error->message == "cancelled while waiting to retry");
    CHECK(ms_since(start) < 2000);
  }
  SUBCASE("an already cancelled token sends nothing") {
    ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); });
    CancelToken token;
    token.cancel();
    CallOptions options;
    options.cancel = token;
    boost::asio::io_context io;
    LlmClient client(io.get_executor(), config_for(server));
    ChatOutcome out = kgb::test::run_one(io, client.chat(request(), options));
    CHECK(out.error->kind == ErrorKind::Cancelled);
    CHECK(server.requests().empty());
  }
}

TEST_CASE("cancellation: Asio's own cancellation (awaitable operators) ends a call") {
  using namespace boost::asio::experimental::awaitable_operators;
  ScriptedServer server([](const RecordedRequest&, int) {
    Reply r;
    r.hang = true;
    return r;
  });
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config_for(server));
  auto race = [&]() -> boost::asio::awaitable<int> {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, 100ms);
    auto winner = co_await (client.chat(request()) || timer.async_wait(boost::asio::use_awaitable));
    co_return static_cast<int>(winner.index());
  };
  const auto start = Clock::now();
  CHECK(kgb::test::run_one(io, race()) == 1);  // the timer won, the call was cancelled and returned
  CHECK(ms_since(start) < 1500);
}

TEST_CASE("connections: keep-alive reuse, and a stale pooled connection is replaced transparently") {
  SUBCASE("reuse") {
    ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); });
    boost::asio::io_context io;
    LlmClient client(io.get_executor(), config_for(server));
    for (int i = 0; i < 3; ++i) REQUIRE(kgb::test::run_one(io, client.chat(request())).ok());
    CHECK(server.connections() == 1);
    CHECK(client.http().connections_opened() == 1);
  }
  SUBCASE("an idle connection the server dropped is not used") {
    ScriptedServer server([](const RecordedRequest&, int index) {
      Reply r = Reply::json(200, ok_body());
      r.drop = index == 0;  // closes after answering, without saying so
      return r;
    });
    boost::asio::io_context io;
    LlmClient client(io.get_executor(), config_for(server));
    REQUIRE(kgb::test::run_one(io, client.chat(request())).ok());
    std::this_thread::sleep_for(50ms);
    ChatOutcome out = kgb::test::run_one(io, client.chat(request()));
    REQUIRE(out.ok());
    CHECK(out.stats.attempts == 1);
    CHECK(server.connections() == 2);
  }
  SUBCASE("a reused connection closed after the request was sent is replaced once") {
    ScriptedServer server([](const RecordedRequest&, int index) {
      if (index == 1) {
        Reply r;
        r.raw = "";
        return r;
      }
      return Reply::json(200, ok_body());
    });
    boost::asio::io_context io;
    LlmClient client(io.get_executor(), config_for(server));
    REQUIRE(kgb::test::run_one(io, client.chat(request())).ok());
    ChatOutcome out = kgb::test::run_one(io, client.chat(request()));
    REQUIRE(out.ok());
    CHECK(out.stats.attempts == 1);  // not a retry: the pooled connection was stale
    CHECK(server.connections() == 2);
    CHECK(server.requests().size() == 3);
  }
}
