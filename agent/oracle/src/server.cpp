// The oracle's HTTP side on Beast: keep-alive sessions, routing, the two
// wire dialects, streaming, and the injected failures.
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

namespace kgb::oracle {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using json = nlohmann::json;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// Solutions may hold any bytes in comments: never let a dump throw.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

enum class Dialect { OpenAI, Anthropic };

// Sums the estimated tokens of every string in a JSON value (messages, system, tools).
int64_t estimate_json_tokens(const json& value) {
  if (value.is_string()) return estimate_tokens(value.get_ref<const std::string&>());
  int64_t total = 0;
  if (value.is_array() || value.is_object())
    for (const auto& item : value) total += estimate_json_tokens(item);
  return total;
}

int64_t estimate_prompt(const json& body) {
  int64_t total = 3;
  if (auto it = body.find("messages"); it != body.end() && it->is_array())
    for (const auto& m : *it) total += 4 + estimate_json_tokens(m.contains("content") ? m["content"] : json());
  for (const char* key : {"system", "tools"})
    if (auto it = body.find(key); it != body.end()) total += estimate_json_tokens(*it);
  return total;
}

// The text of a message's content: a string, or the text parts/blocks of an array.
void append_text(const json& content, std::string& out) {
  if (content.is_string()) {
    out += content.get_ref<const std::string&>();
    out += '\n';
  } else if (content.is_array()) {
    for (const auto& part : content)
      if (part.is_object() && part.value("type", "") == "text" && part.contains("text") && part["text"].is_string()) {
        out += part["text"].get_ref<const std::string&>();
        out += '\n';
      }
  }
}

PromptFacts facts_of(const json& body) {
  PromptFacts facts;
  if (auto it = body.find("messages"); it != body.end() && it->is_array())
    for (const auto& m : *it) {
      if (!m.is_object() || m.value("role", "") != "user" || !m.contains("content")) continue;
      std::string text;
      append_text(m["content"], text);
      scan_prompt(text, facts);
    }
  return facts;
}

std::string session_of(const http::request<http::string_body>& req, const json& body) {
  if (auto it = req.find("x-kgb-session"); it != req.end()) return std::string(it->value());
  if (body.contains("user") && body["user"].is_string()) return body["user"].get<std::string>();
  if (body.contains("metadata") && body["metadata"].is_object() && body["metadata"].contains("user_id") &&
      body["metadata"]["user_id"].is_string())
    return body["metadata"]["user_id"].get<std::string>();
  return {};
}

// Pieces of at most `size` bytes, never splitting a UTF-8 sequence.
std::vector<std::string_view> pieces(std::string_view text, std::size_t size) {
  std::vector<std::string_view> out;
  size = std::max<std::size_t>(size, 4);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = std::min(text.size(), pos + size);
    while (end < text.size() && end > pos + 1 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    out.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

std::string sse(const json& data, const char* event = nullptr) {
  std::string out;
  if (event) {
    out += "event: ";
    out += event;
    out += '\n';
  }
  out += "data: " + dump(data) + "\n\n";
  return out;
}

json error_body(Dialect dialect, const std::string& type, const std::string& message, const std::string& code = "") {
  if (dialect == Dialect::Anthropic) return {{"type", "error"}, {"error", {{"type", type}, {"message", message}}}};
  json error = {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code.empty() ? json(nullptr) : json(code)}};
  return {{"error", error}};
}

struct Usage {
  int64_t prompt = 0, completion = 0, reasoning = 0;
};

}  // namespace

struct OracleServer::Impl {
  Impl(OracleOptions o, std::shared_ptr<const SolutionCatalog> catalog)
      : options(o), brain(std::move(o), std::move(catalog)) {}

  asio::awaitable<void> accept_loop();
  asio::awaitable<void> session(tcp::socket socket);
  asio::awaitable<bool> handle(beast::tcp_stream& stream, http::request<http::string_body>& req);
  asio::awaitable<bool> chat(beast::tcp_stream& stream, http::request<http::string_body>& req, Dialect dialect);
  asio::awaitable<bool> send_json(beast::tcp_stream& stream, const http::request<http::string_body>& req, int status,
                                  const json& body, std::vector<std::pair<std::string, std::string>> headers = {});
  json stats_json() const;
  json models_json() const {
    json model = {{"id", options.model}, {"object", "model"}, {"owned_by", "kgb"}};
    return {{"object", "list"}, {"data", json::array({model})}};
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
      injected_truncated{0}, compile_error_faults{0}, wrong_result_faults{0}, unknown_prompts{0}, prompt_tokens{0},
      completion_tokens{0};
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
      co_await send_json(stream, req, 413, error_body(Dialect::OpenAI, "invalid_request_error", "request body too large"));
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
                                                    std::vector<std::pair<std::string, std::string>> headers) {
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
  if (target == "/v1/chat/completions" || target == "/chat/completions") {
    if (!post) co_return co_await send_json(stream, req, 405, error_body(Dialect::OpenAI, "invalid_request_error", "use POST"));
    co_return co_await chat(stream, req, Dialect::OpenAI);
  }
  if (target == "/v1/messages" || target == "/messages") {
    if (!post) co_return co_await send_json(stream, req, 405, error_body(Dialect::Anthropic, "invalid_request_error", "use POST"));
    co_return co_await chat(stream, req, Dialect::Anthropic);
  }
  // GCC 12 miscompiles braced initialisers inside co_await expressions: build
  // the bodies first.
  if (get && (target == "/v1/models" || target == "/models")) {
    const json models = models_json();
    co_return co_await send_json(stream, req, 200, models);
  }
  if (get && target == "/health") {
    const json health = json::object({{"status", "ok"}});
    co_return co_await send_json(stream, req, 200, health);
  }
  if (get && target == "/kgb/stats") co_return co_await send_json(stream, req, 200, stats_json());
  co_return co_await send_json(stream, req, 404,
                               error_body(Dialect::OpenAI, "invalid_request_error", "no route " + std::string(target)));
}

asio::awaitable<bool> OracleServer::Impl::chat(beast::tcp_stream& stream, http::request<http::string_body>& req,
                                               Dialect dialect) {
  json body = json::parse(req.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object())
    co_return co_await send_json(stream, req, 400, error_body(dialect, "invalid_request_error", "the request body is not a JSON object"));
  if (!body.contains("messages") || !body["messages"].is_array())
    co_return co_await send_json(stream, req, 400, error_body(dialect, "invalid_request_error", "messages: an array is required"));
  ++requests;
  const bool streaming = body.value("stream", false);
  const std::string model = body.contains("model") && body["model"].is_string() ? body["model"].get<std::string>() : options.model;
  const OracleBrain::Draw draw = brain.draw(req.body(), streaming);
  if (draw.latency.count() > 0) {
    asio::steady_timer pause(co_await asio::this_coro::executor, draw.latency);
    co_await pause.async_wait(use_tuple);
  }
  const std::string request_id = "oracle-" + std::to_string(next_id++);

  if (draw.fault == HttpFault::TooManyRequests) {
    ++injected_429;
    const auto ms = options.retry_after.count();
    std::vector<std::pair<std::string, std::string>> retry_headers;
    retry_headers.emplace_back("retry-after-ms", std::to_string(ms));
    retry_headers.emplace_back("retry-after", std::to_string((ms + 999) / 1000));
    retry_headers.emplace_back("x-request-id", request_id);
    const json limited = error_body(dialect, dialect == Dialect::Anthropic ? "rate_limit_error" : "requests",
                                    "Rate limit reached (injected by the oracle). Please try again later.",
                                    "rate_limit_exceeded");
    co_return co_await send_json(stream, req, 429, limited, std::move(retry_headers));
  }
  if (draw.fault == HttpFault::ServerError) {
    ++injected_500;
    std::vector<std::pair<std::string, std::string>> id_header;
    id_header.emplace_back("x-request-id", request_id);
    const json failure = error_body(dialect, dialect == Dialect::Anthropic ? "api_error" : "server_error",
                                    "The server had an error while processing your request (injected by the oracle).");
    co_return co_await send_json(stream, req, 500, failure, std::move(id_header));
  }

  const bool whole = draw.fault == HttpFault::None;
  const AnswerPlan plan = brain.answer(session_of(req, body), facts_of(body), whole);
  Usage usage;
  usage.prompt = estimate_prompt(body);
  usage.reasoning = plan.reasoning.empty() ? 0 : estimate_tokens(plan.reasoning);
  usage.completion = estimate_tokens(plan.text) + usage.reasoning;

  std::vector<std::pair<std::string, std::string>> headers = {
      {"x-request-id", request_id},
      {"x-kgb-tokens-estimated", "true"},
      {"x-kgb-oracle-fault", plan.fault},
      {"x-kgb-oracle-attempt", std::to_string(plan.attempt)}};
  if (plan.known) headers.push_back({"x-kgb-oracle-task", plan.task_id + " " + plan.platform});
  if (!plan.note.empty()) headers.push_back({"x-kgb-oracle-note", plan.note});
  auto account = [&] {
    ++answered;
    prompt_tokens += usage.prompt;
    completion_tokens += usage.completion;
    if (!plan.known) ++unknown_prompts;
    if (plan.fault == "compile_error") ++compile_error_faults;
    if (plan.fault == "wrong_result") ++wrong_result_faults;
  };
  const json meta = {{"task", plan.task_id},   {"platform", plan.platform}, {"attempt", plan.attempt},
                     {"fault", plan.fault},    {"note", plan.note},         {"tokens_estimated", true}};
  const std::time_t created = std::time(nullptr);

  if (!streaming) {
    json answer;
    if (dialect == Dialect::OpenAI) {
      json message = {{"role", "assistant"}, {"content", plan.text}};
      if (!plan.reasoning.empty()) message["reasoning_content"] = plan.reasoning;
      answer = {{"id", "chatcmpl-" + request_id},
                {"object", "chat.completion"},
                {"created", created},
                {"model", model},
                {"choices", json::array({{{"index", 0}, {"message", message}, {"finish_reason", "stop"}}})},
                {"usage", {{"prompt_tokens", usage.prompt},
                           {"completion_tokens", usage.completion},
                           {"total_tokens", usage.prompt + usage.completion},
                           {"prompt_tokens_details", {{"cached_tokens", 0}}},
                           {"completion_tokens_details", {{"reasoning_tokens", usage.reasoning}}},
                           {"estimated", true}}},
                {"kgb_oracle", meta}};
    } else {
      json content = json::array();
      if (!plan.reasoning.empty())
        content.push_back({{"type", "thinking"}, {"thinking", plan.reasoning}, {"signature", "oracle-signature"}});
      content.push_back({{"type", "text"}, {"text", plan.text}});
      answer = {{"id", "msg_" + request_id},
                {"type", "message"},
                {"role", "assistant"},
                {"model", model},
                {"content", content},
                {"stop_reason", "end_turn"},
                {"stop_sequence", nullptr},
                {"usage", {{"input_tokens", usage.prompt},
                           {"output_tokens", usage.completion},
                           {"cache_creation_input_tokens", 0},
                           {"cache_read_input_tokens", 0},
                           {"estimated", true}}},
                {"kgb_oracle", meta}};
    }
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
  std::vector<std::string> events;
  const std::string id = (dialect == Dialect::OpenAI ? "chatcmpl-" : "msg_") + request_id;
  const auto text_pieces = pieces(plan.text, options.chunk_chars);
  const auto reasoning_pieces = pieces(plan.reasoning, options.chunk_chars);
  std::size_t cut_at = 0;  // event index where an injected failure strikes
  if (dialect == Dialect::OpenAI) {
    auto chunk = [&](json delta, json finish = nullptr) {
      return sse({{"id", id},
                  {"object", "chat.completion.chunk"},
                  {"created", created},
                  {"model", model},
                  {"choices", json::array({{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}})}});
    };
    events.push_back(chunk({{"role", "assistant"}, {"content", ""}}));
    for (auto p : reasoning_pieces) events.push_back(chunk({{"reasoning_content", p}}));
    for (auto p : text_pieces) events.push_back(chunk({{"content", p}}));
    cut_at = 1 + reasoning_pieces.size() + text_pieces.size() / 2;
    events.push_back(chunk(json::object(), "stop"));
    const bool include_usage = body.contains("stream_options") && body["stream_options"].is_object() &&
                               body["stream_options"].value("include_usage", false);
    if (include_usage)
      events.push_back(sse({{"id", id},
                            {"object", "chat.completion.chunk"},
                            {"created", created},
                            {"model", model},
                            {"choices", json::array()},
                            {"usage", {{"prompt_tokens", usage.prompt},
                                       {"completion_tokens", usage.completion},
                                       {"total_tokens", usage.prompt + usage.completion},
                                       {"prompt_tokens_details", {{"cached_tokens", 0}}},
                                       {"completion_tokens_details", {{"reasoning_tokens", usage.reasoning}}},
                                       {"estimated", true}}},
                            {"kgb_oracle", meta}}));
    events.push_back("data: [DONE]\n\n");
  } else {
    events.push_back(sse({{"type", "message_start"},
                          {"message", {{"id", id},
                                       {"type", "message"},
                                       {"role", "assistant"},
                                       {"model", model},
                                       {"content", json::array()},
                                       {"stop_reason", nullptr},
                                       {"usage", {{"input_tokens", usage.prompt},
                                                  {"output_tokens", 1},
                                                  {"cache_creation_input_tokens", 0},
                                                  {"cache_read_input_tokens", 0},
                                                  {"estimated", true}}}}}},
                         "message_start"));
    events.push_back(sse({{"type", "ping"}}, "ping"));
    int index = 0;
    if (!plan.reasoning.empty()) {
      events.push_back(sse({{"type", "content_block_start"}, {"index", index}, {"content_block", {{"type", "thinking"}, {"thinking", ""}}}},
                           "content_block_start"));
      for (auto p : reasoning_pieces)
        events.push_back(sse({{"type", "content_block_delta"}, {"index", index}, {"delta", {{"type", "thinking_delta"}, {"thinking", p}}}},
                             "content_block_delta"));
      events.push_back(sse({{"type", "content_block_delta"}, {"index", index}, {"delta", {{"type", "signature_delta"}, {"signature", "oracle-signature"}}}},
                           "content_block_delta"));
      events.push_back(sse({{"type", "content_block_stop"}, {"index", index}}, "content_block_stop"));
      ++index;
    }
    events.push_back(sse({{"type", "content_block_start"}, {"index", index}, {"content_block", {{"type", "text"}, {"text", ""}}}},
                         "content_block_start"));
    const std::size_t text_start = events.size();
    for (auto p : text_pieces)
      events.push_back(sse({{"type", "content_block_delta"}, {"index", index}, {"delta", {{"type", "text_delta"}, {"text", p}}}},
                           "content_block_delta"));
    cut_at = text_start + text_pieces.size() / 2;
    events.push_back(sse({{"type", "content_block_stop"}, {"index", index}}, "content_block_stop"));
    events.push_back(sse({{"type", "message_delta"},
                          {"delta", {{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}},
                          {"usage", {{"output_tokens", usage.completion}, {"estimated", true}}}},
                         "message_delta"));
    events.push_back(sse({{"type", "message_stop"}}, "message_stop"));
  }

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
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i > 0 && options.chunk_delay.count() > 0) {
      pace.expires_after(options.chunk_delay);
      co_await pace.async_wait(use_tuple);
    }
    if (i == cut_at && draw.fault == HttpFault::Truncate) {
      ++injected_truncated;
      stream.close();  // no terminating chunk: the client sees a cut stream
      co_return false;
    }
    if (i == cut_at && draw.fault == HttpFault::MidStream) {
      ++injected_mid_stream;
      const std::string failure =
          dialect == Dialect::OpenAI
              ? sse(error_body(dialect, "server_error", "The server had an error while streaming (injected by the oracle).", "injected_fault"))
              : sse(error_body(dialect, "overloaded_error", "Overloaded (injected by the oracle)."), "error");
      auto [ec, n] = co_await asio::async_write(stream, http::make_chunk(asio::buffer(failure)), use_tuple);
      if (ec) co_return false;
      break;
    }
    auto [ec, n] = co_await asio::async_write(stream, http::make_chunk(asio::buffer(events[i])), use_tuple);
    if (ec) co_return false;
  }
  // Counted before the last chunk leaves: a client that has the whole answer
  // must find it in the statistics.
  if (whole) account();
  auto [last_ec, last_n] = co_await asio::async_write(stream, http::make_chunk_last(), use_tuple);
  co_return !last_ec;
}

}  // namespace kgb::oracle
