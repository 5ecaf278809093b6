// The oracle's HTTP side on Beast: keep-alive sessions, routing to the three
// dialects (render.h writes them), streaming, and the injected failures.
#include "kgb/oracle/server.h"

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <sstream>
#include <thread>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "render.h"

namespace kgb::oracle {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using json = nlohmann::json;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

using render::dump;
using render::error_body;
using Headers = std::vector<std::pair<std::string, std::string>>;

// Which dialect an error on this request speaks: Anthropic's routes and
// requests from Anthropic clients (they always send anthropic-version) get
// Anthropic's shape.
Dialect dialect_of(const http::request<http::string_body>& req, std::string_view target) {
  if (target.starts_with("/v1/messages") || target.starts_with("/messages")) return Dialect::Anthropic;
  if (req.find("anthropic-version") != req.end()) return Dialect::Anthropic;
  return Dialect::OpenAIChat;
}

const char* not_found_type(Dialect d) { return d == Dialect::Anthropic ? "not_found_error" : "invalid_request_error"; }

}  // namespace

struct OracleServer::Impl {
  Impl(OracleOptions o, std::shared_ptr<const SolutionCatalog> catalog)
      : options(o), brain(std::move(o), std::move(catalog)) {}

  asio::awaitable<void> accept_loop();
  asio::awaitable<void> session(tcp::socket socket);
  asio::awaitable<bool> handle(beast::tcp_stream& stream, http::request<http::string_body>& req);
  asio::awaitable<bool> chat(beast::tcp_stream& stream, http::request<http::string_body>& req, Dialect dialect);
  asio::awaitable<bool> count_tokens(beast::tcp_stream& stream, http::request<http::string_body>& req);
  asio::awaitable<bool> send_json(beast::tcp_stream& stream, const http::request<http::string_body>& req, int status,
                                  const json& body, Headers headers = {});
  json stats_json() const;
  json model_json(Dialect dialect) const {
    if (dialect == Dialect::Anthropic)
      return {{"type", "model"}, {"id", options.model}, {"display_name", options.model}, {"created_at", "2025-01-01T00:00:00Z"}};
    return {{"id", options.model}, {"object", "model"}, {"created", 1735689600}, {"owned_by", "kgb"}};
  }
  json models_json(Dialect dialect) const {
    if (dialect == Dialect::Anthropic)
      return {{"data", json::array({model_json(dialect)})}, {"has_more", false}, {"first_id", options.model}, {"last_id", options.model}};
    return {{"object", "list"}, {"data", json::array({model_json(dialect)})}};
  }

  OracleOptions options;
  OracleBrain brain;
  asio::io_context io;
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::signal_set> signals;
  std::vector<std::thread> threads;
  uint16_t port = 0;
  std::mutex stop_mutex;
  std::condition_variable stop_cv;
  bool stopped = false;
  std::atomic<int64_t> next_id{1};

  std::atomic<int64_t> requests{0}, answered{0}, injected_429{0}, injected_500{0}, injected_mid_stream{0},
      injected_truncated{0}, compile_error_faults{0}, wrong_result_faults{0}, tool_call_answers{0}, unknown_prompts{0},
      prompt_tokens{0}, completion_tokens{0};
};

OracleServer::OracleServer(OracleOptions options, std::shared_ptr<const SolutionCatalog> catalog)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(catalog))) {}

OracleServer::~OracleServer() { stop(); }

uint16_t OracleServer::port() const { return impl_->port; }

std::string OracleServer::base_url() const {
  const std::string& host = impl_->options.host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->port) + "/v1";
}

kgb::Result<uint16_t> OracleServer::start() {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(impl_->options.host, ec);
  if (ec) return make_error("oracle.address", "cannot use '" + impl_->options.host + "' as a listening address");
  tcp::endpoint endpoint(address, impl_->options.port);
  auto& acceptor = impl_->acceptor.emplace(impl_->io);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return make_error("oracle.listen", "cannot listen on " + impl_->options.host + ":" +
                                           std::to_string(impl_->options.port) + ": " + ec.message());
  impl_->port = acceptor.local_endpoint().port();
  asio::co_spawn(impl_->io, impl_->accept_loop(), asio::detached);
  const int threads = std::max(1, impl_->options.threads);
  for (int i = 0; i < threads; ++i) impl_->threads.emplace_back([this] { impl_->io.run(); });
  return impl_->port;
}

void OracleServer::stop() {
  {
    std::lock_guard lock(impl_->stop_mutex);
    impl_->stopped = true;
  }
  impl_->stop_cv.notify_all();
  impl_->io.stop();
  for (auto& t : impl_->threads)
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  impl_->threads.clear();
}

void OracleServer::stop_on_signals() {
  impl_->signals.emplace(impl_->io, SIGINT, SIGTERM);
  impl_->signals->async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    std::lock_guard lock(impl_->stop_mutex);
    impl_->stopped = true;
    impl_->stop_cv.notify_all();
  });
}

void OracleServer::wait() {
  {
    std::unique_lock lock(impl_->stop_mutex);
    impl_->stop_cv.wait(lock, [&] { return impl_->stopped; });
  }
  stop();
}

OracleStats OracleServer::stats() const {
  OracleStats s;
  s.requests = impl_->requests;
  s.answered = impl_->answered;
  s.injected_429 = impl_->injected_429;
  s.injected_500 = impl_->injected_500;
  s.injected_mid_stream = impl_->injected_mid_stream;
  s.injected_truncated = impl_->injected_truncated;
  s.compile_error_faults = impl_->compile_error_faults;
  s.wrong_result_faults = impl_->wrong_result_faults;
  s.tool_call_answers = impl_->tool_call_answers;
  s.unknown_prompts = impl_->unknown_prompts;
  s.prompt_tokens = impl_->prompt_tokens;
  s.completion_tokens = impl_->completion_tokens;
  return s;
}

json OracleServer::Impl::stats_json() const {
  return {{"requests", requests.load()},
          {"answered", answered.load()},
          {"injected_429", injected_429.load()},
          {"injected_500", injected_500.load()},
          {"injected_mid_stream", injected_mid_stream.load()},
          {"injected_truncated", injected_truncated.load()},
          {"compile_error_faults", compile_error_faults.load()},
          {"wrong_result_faults", wrong_result_faults.load()},
          {"tool_call_answers", tool_call_answers.load()},
          {"unknown_prompts", unknown_prompts.load()},
          {"prompt_tokens", prompt_tokens.load()},
          {"completion_tokens", completion_tokens.load()},
          {"tokens_estimated", true}};
}

asio::awaitable<void> OracleServer::Impl::accept_loop() {
  for (;;) {
    auto [ec, socket] = co_await acceptor->async_accept(asio::make_strand(io), use_tuple);
    if (ec == asio::error::operation_aborted || !acceptor->is_open()) co_return;
    if (ec) {
      // Out of descriptors and the like: back off briefly rather than spin.
      asio::steady_timer pause(io, 50ms);
      co_await pause.async_wait(use_tuple);
      continue;
    }
    auto executor = socket.get_executor();
    asio::co_spawn(executor, session(std::move(socket)), asio::detached);
  }
}

asio::awaitable<void> OracleServer::Impl::session(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  boost::system::error_code ignored;
  stream.socket().set_option(tcp::no_delay(true), ignored);
  beast::flat_buffer buffer;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(options.max_request_bytes);
    stream.expires_after(std::chrono::minutes(5));
    auto [ec, n] = co_await http::async_read(stream, buffer, parser, use_tuple);
    if (ec == http::error::body_limit) {
      http::request<http::string_body> req = parser.release();
      const Dialect dialect = dialect_of(req, req.target());
      co_await send_json(stream, req, 413,
                         error_body(dialect, dialect == Dialect::Anthropic ? "request_too_large" : "invalid_request_error",
                                    "request body too large"));
      break;
    }
    if (ec) break;
    http::request<http::string_body> req = parser.release();
    stream.expires_never();
    const bool keep = co_await handle(stream, req);
    if (!keep || !req.keep_alive()) break;
  }
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<bool> OracleServer::Impl::send_json(beast::tcp_stream& stream,
                                                    const http::request<http::string_body>& req, int status,
                                                    const json& body,
                                                    Headers headers) {
  http::response<http::string_body> res{static_cast<http::status>(status), req.version()};
  res.set(http::field::server, "kgb-oracle");
  res.set(http::field::content_type, "application/json");
  for (auto& [name, value] : headers) res.set(name, value);
  res.keep_alive(req.keep_alive());
  res.body() = dump(body);
  res.prepare_payload();
  stream.expires_after(std::chrono::minutes(1));
  auto [ec, n] = co_await http::async_write(stream, res, use_tuple);
  co_return !ec;
}

asio::awaitable<bool> OracleServer::Impl::handle(beast::tcp_stream& stream, http::request<http::string_body>& req) {
  std::string_view target = req.target();
  if (auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
  while (target.size() > 1 && target.back() == '/') target.remove_suffix(1);
  const bool post = req.method() == http::verb::post;
  const bool get = req.method() == http::verb::get;
  const Dialect dialect = dialect_of(req, target);
  // GCC 12 miscompiles braced initialisers inside co_await expressions: the
  // bodies are built first.
  auto wrong_method = [&](const char* allowed) {
    return error_body(dialect, "invalid_request_error", "method " + std::string(req.method_string()) + " is not allowed here; use " + allowed);
  };
  if (target == "/v1/chat/completions" || target == "/chat/completions") {
    if (!post) co_return co_await send_json(stream, req, 405, wrong_method("POST"));
    co_return co_await chat(stream, req, Dialect::OpenAIChat);
  }
  if (target == "/v1/responses" || target == "/responses") {
    if (!post) co_return co_await send_json(stream, req, 405, wrong_method("POST"));
    co_return co_await chat(stream, req, Dialect::OpenAIResponses);
  }
  if (target == "/v1/messages" || target == "/messages") {
    if (!post) co_return co_await send_json(stream, req, 405, wrong_method("POST"));
    co_return co_await chat(stream, req, Dialect::Anthropic);
  }
  if (target == "/v1/messages/count_tokens" || target == "/messages/count_tokens") {
    if (!post) co_return co_await send_json(stream, req, 405, wrong_method("POST"));
    co_return co_await count_tokens(stream, req);
  }
  if (target == "/v1/models" || target == "/models") {
    if (!get) co_return co_await send_json(stream, req, 405, wrong_method("GET"));
    const json models = models_json(dialect);
    co_return co_await send_json(stream, req, 200, models);
  }
  for (std::string_view prefix : {"/v1/models/", "/models/"})
    if (target.starts_with(prefix)) {
      if (!get) co_return co_await send_json(stream, req, 405, wrong_method("GET"));
      const std::string id(target.substr(prefix.size()));
      if (id == options.model) {
        const json model = model_json(dialect);
        co_return co_await send_json(stream, req, 200, model);
      }
      const json missing = error_body(dialect, not_found_type(dialect),
                                      "The model '" + id + "' does not exist; this server serves '" + options.model + "'",
                                      "model_not_found");
      co_return co_await send_json(stream, req, 404, missing);
    }
  if (get && target == "/health") {
    const json health = json::object({{"status", "ok"}});
    co_return co_await send_json(stream, req, 200, health);
  }
  if (get && target == "/kgb/stats") co_return co_await send_json(stream, req, 200, stats_json());
  const json missing = error_body(dialect, not_found_type(dialect), "no route " + std::string(req.method_string()) + " " + std::string(target));
  co_return co_await send_json(stream, req, 404, missing);
}

asio::awaitable<bool> OracleServer::Impl::count_tokens(beast::tcp_stream& stream, http::request<http::string_body>& req) {
  json body = json::parse(req.body(), nullptr, false);
  // The count needs no output cap; the messages body requires one.
  if (body.is_object() && !body.contains("max_tokens")) body["max_tokens"] = 1;
  auto query = parse_query(Dialect::Anthropic, body);
  if (!query) {
    const json failure = error_body(Dialect::Anthropic, "invalid_request_error", query.error().message);
    co_return co_await send_json(stream, req, 400, failure);
  }
  const json count = {{"input_tokens", estimate_query_tokens(*query)}};
  co_return co_await send_json(stream, req, 200, count);
}

asio::awaitable<bool> OracleServer::Impl::chat(beast::tcp_stream& stream, http::request<http::string_body>& req,
                                               Dialect dialect) {
  const json body = json::parse(req.body(), nullptr, false);
  auto query = body.is_discarded() ? kgb::Result<Query>(kgb::Error{"oracle.bad-request", "the request body is not JSON"})
                                   : parse_query(dialect, body);
  if (!query) {
    const json failure = error_body(dialect, "invalid_request_error", query.error().message);
    co_return co_await send_json(stream, req, 400, failure);
  }
  ++requests;
  const bool streaming = query->stream;
  const OracleBrain::Draw draw = brain.draw(req.body(), streaming);
  if (draw.latency.count() > 0) {
    asio::steady_timer pause(co_await asio::this_coro::executor, draw.latency);
    co_await pause.async_wait(use_tuple);
  }
  const std::string request_id = "oracle-" + std::to_string(next_id++);
  const bool anthropic = dialect == Dialect::Anthropic;

  if (draw.fault == HttpFault::TooManyRequests) {
    ++injected_429;
    const auto ms = options.retry_after.count();
    Headers retry_headers;
    retry_headers.emplace_back("retry-after-ms", std::to_string(ms));
    retry_headers.emplace_back("retry-after", std::to_string((ms + 999) / 1000));
    retry_headers.emplace_back(anthropic ? "request-id" : "x-request-id", request_id);
    const json limited = error_body(dialect, anthropic ? "rate_limit_error" : "requests",
                                    "Rate limit reached (injected by the oracle). Please try again later.",
                                    "rate_limit_exceeded");
    co_return co_await send_json(stream, req, 429, limited, std::move(retry_headers));
  }
  if (draw.fault == HttpFault::ServerError) {
    ++injected_500;
    Headers id_header;
    id_header.emplace_back(anthropic ? "request-id" : "x-request-id", request_id);
    const json failure = error_body(dialect, anthropic ? "api_error" : "server_error",
                                    "The server had an error while processing your request (injected by the oracle).");
    co_return co_await send_json(stream, req, 500, failure, std::move(id_header));
  }

  const bool whole = draw.fault == HttpFault::None;
  const Reply reply = brain.reply(*query);
  Headers headers = {{anthropic ? "request-id" : "x-request-id", request_id},
                     {"x-kgb-tokens-estimated", "true"},
                     {"x-kgb-oracle-fault", reply.fault},
                     {"x-kgb-oracle-attempt", std::to_string(reply.attempt)},
                     {"x-kgb-oracle-action", reply.action}};
  if (reply.known) headers.push_back({"x-kgb-oracle-task", reply.task_id + " " + reply.platform});
  if (!reply.note.empty()) headers.push_back({"x-kgb-oracle-note", reply.note});
  auto account = [&] {
    ++answered;
    prompt_tokens += reply.prompt_tokens;
    completion_tokens += reply.completion_tokens * query->choices;
    if (!reply.known) ++unknown_prompts;
    if (!reply.calls.empty()) ++tool_call_answers;
    if (reply.fault == "compile_error") ++compile_error_faults;
    if (reply.fault == "wrong_result") ++wrong_result_faults;
  };
  render::Envelope envelope;
  envelope.request_id = request_id;
  envelope.created = std::time(nullptr);
  envelope.model = query->model.empty() ? options.model : query->model;
  envelope.chunk_chars = options.chunk_chars;
  envelope.oracle_meta = {{"task", reply.task_id},   {"platform", reply.platform}, {"attempt", reply.attempt},
                          {"fault", reply.fault},    {"action", reply.action},     {"note", reply.note},
                          {"tokens_estimated", true}};

  if (!streaming) {
    const json answer = render::answer_body(*query, reply, envelope);
    if (draw.fault == HttpFault::Truncate) {
      // Promise the whole body, send half of it, hang up.
      ++injected_truncated;
      http::response<http::string_body> res{http::status::ok, req.version()};
      res.set(http::field::content_type, "application/json");
      for (auto& [name, value] : headers) res.set(name, value);
      res.body() = dump(answer);
      res.prepare_payload();
      std::ostringstream head;
      head << res.base();
      const std::string bytes = head.str() + res.body().substr(0, res.body().size() / 2);
      co_await asio::async_write(stream, asio::buffer(bytes), use_tuple);
      stream.close();
      co_return false;
    }
    account();
    co_return co_await send_json(stream, req, 200, answer, std::move(headers));
  }

  // Streaming: one SSE event per HTTP chunk, optionally paced.
  const render::Events events = render::answer_events(*query, reply, envelope);
  http::response<http::empty_body> res{http::status::ok, req.version()};
  res.set(http::field::server, "kgb-oracle");
  res.set(http::field::content_type, "text/event-stream");
  res.set(http::field::cache_control, "no-cache");
  for (auto& [name, value] : headers) res.set(name, value);
  res.keep_alive(req.keep_alive());
  res.chunked(true);
  http::response_serializer<http::empty_body> serializer{res};
  stream.expires_after(std::chrono::minutes(5));
  auto [header_ec, header_bytes] = co_await http::async_write_header(stream, serializer, use_tuple);
  if (header_ec) co_return false;

  asio::steady_timer pace(co_await asio::this_coro::executor);
  for (std::size_t i = 0; i < events.events.size(); ++i) {
    if (i > 0 && options.chunk_delay.count() > 0) {
      pace.expires_after(options.chunk_delay);
      co_await pace.async_wait(use_tuple);
    }
    if (i == events.cut_at && draw.fault == HttpFault::Truncate) {
      ++injected_truncated;
      stream.close();  // no terminating chunk: the client sees a cut stream
      co_return false;
    }
    if (i == events.cut_at && draw.fault == HttpFault::MidStream) {
      ++injected_mid_stream;
      const std::string failure =
          anthropic ? render::stream_error_event(dialect, "overloaded_error", "Overloaded (injected by the oracle).")
                    : render::stream_error_event(dialect, "server_error",
                                                 "The server had an error while streaming (injected by the oracle).");
      auto [ec, n] = co_await asio::async_write(stream, http::make_chunk(asio::buffer(failure)), use_tuple);
      if (ec) co_return false;
      break;
    }
    auto [ec, n] = co_await asio::async_write(stream, http::make_chunk(asio::buffer(events.events[i])), use_tuple);
    if (ec) co_return false;
  }
  // Counted before the last chunk leaves: a client that has the whole answer
  // must find it in the statistics.
  if (whole) account();
  auto [last_ec, last_n] = co_await asio::async_write(stream, http::make_chunk_last(), use_tuple);
  co_return !last_ec;
}

}  // namespace kgb::oracle
