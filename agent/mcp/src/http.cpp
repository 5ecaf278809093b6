#include <deque>
#include <random>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "transports.h"

namespace kgb::mcp {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr auto kKeepAliveIdle = 120s;        // between requests on a kept-alive connection
constexpr auto kWriteDeadline = 30s;
constexpr auto kKeepAliveComment = 15s;      // SSE comment while a tool runs

// Transport-level errors (before any JSON-RPC method runs), as the SDKs send them.
constexpr int kServerError = -32000;
constexpr int kSessionNotFound = -32001;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string new_session_id() {
  std::random_device rd;
  static const char* hex = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 8; ++i) {
    uint32_t v = rd();
    for (int k = 0; k < 8; ++k, v >>= 4) id += hex[v & 15];
  }
  return id;
}

bool equal_constant_time(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

// Loopback origins are the local tools a developer uses; anything else must
// be listed (a web page that got a loopback address through DNS rebinding
// carries its own origin).
bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
  for (const auto& o : allowed)
    if (o == origin) return true;
  const auto scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos) return false;
  const std::string scheme = lower(origin.substr(0, scheme_end));
  if (scheme != "http" && scheme != "https") return false;
  std::string_view host = origin.substr(scheme_end + 3);
  if (host.find('/') != std::string_view::npos) return false;
  if (!host.empty() && host.front() == '[') {
    const auto close = host.find(']');
    if (close == std::string_view::npos) return false;
    return host.substr(1, close - 1) == "::1";
  }
  host = host.substr(0, host.find(':'));
  const std::string h = lower(host);
  return h == "localhost" || h == "127.0.0.1" || (h.rfind("127.", 0) == 0 && h.find_first_not_of("0123456789.") == std::string::npos);
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

std::string query_value(std::string_view query, std::string_view key) {
  size_t pos = 0;
  while (pos <= query.size()) {
    const size_t end = std::min(query.find('&', pos), query.size());
    const std::string_view pair = query.substr(pos, end - pos);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key) return eq == std::string_view::npos ? "" : percent_decode(pair.substr(eq + 1));
    pos = end + 1;
  }
  return {};
}

// What a client that must fix its request is told: a JSON-RPC error body.
std::string error_body(const json& id, int code, std::string message) {
  return jsonrpc::serialize(jsonrpc::error(id, code, std::move(message)));
}

// A coroutine that ends with an exception is a bug: say so, the server goes on.
void log_failure(std::exception_ptr e) {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kgb mcp-server: internal error: %s\n", x.what());
  }
}

// SSE between the tool call and the writer of its connection.
struct Outbox {
  explicit Outbox(asio::any_io_executor ex) : wake(std::move(ex)) {}
  asio::steady_timer wake;
  std::deque<std::string> events;
  bool done = false;
  void push(const json& message) {
    events.push_back(jsonrpc::serialize(message));
    wake.cancel();
  }
};

// `notify` is made by the caller: GCC 12 mishandles lambdas that capture coroutine parameters.
asio::awaitable<void> run_into(Engine& engine, std::shared_ptr<Session> s, jsonrpc::Message message,
                               std::shared_ptr<Outbox> outbox, Notify notify) {
  auto response = co_await engine.handle(s, std::move(message), std::move(notify));
  if (response) outbox->events.push_back(jsonrpc::serialize(*response));
  outbox->done = true;
  outbox->wake.cancel();
}

}  // namespace

// Built with parentheses, and before the co_await that sends it: GCC 12
// miscompiles braced initialisers and conditional expressions inside co_await
// expressions (temporaries destroyed twice).
struct HttpTransport::Reply {
  Reply(http::status s, std::string b) : status(s), body(std::move(b)) {}
  http::status status = http::status::ok;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
};

HttpTransport::HttpTransport(Engine& engine, asio::io_context& io) : engine_(engine), io_(io) {}

HttpTransport::Reply HttpTransport::refusal(http::status status, const json& id, int code, std::string message) {
  return Reply(status, error_body(id, code, std::move(message)));
}

Result<uint16_t> HttpTransport::start() {
  const McpOptions& o = engine_.options();
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(o.host, ec);
  if (ec) return make_error("mcp.address", "cannot use '" + o.host + "' as a listening address");
  tcp::endpoint endpoint(address, o.port);
  auto& acceptor = acceptor_.emplace(io_);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return make_error("mcp.listen", "cannot listen on " + o.host + ":" + std::to_string(o.port) + ": " + ec.message());
  port_ = acceptor.local_endpoint().port();
  asio::co_spawn(io_, accept_loop(), asio::detached);
  asio::co_spawn(io_, reap_idle_sessions(), asio::detached);
  return port_;
}

void HttpTransport::close(const std::string& reason) {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ignored;
  if (acceptor_) acceptor_->close(ignored);
  for (auto& [id, s] : sessions_) engine_.close_session(*s, reason);
  sessions_.clear();
}

asio::awaitable<void> HttpTransport::accept_loop() {
  for (;;) {
    auto [ec, socket] = co_await acceptor_->async_accept(use_tuple);
    if (closed_ || ec == asio::error::operation_aborted) co_return;
    if (ec) {
      // Out of descriptors and the like: back off briefly rather than spin.
      asio::steady_timer pause(io_, 50ms);
      co_await pause.async_wait(use_tuple);
      continue;
    }
    asio::co_spawn(io_, connection(std::move(socket)), log_failure);
  }
}

asio::awaitable<void> HttpTransport::reap_idle_sessions() {
  const double idle = engine_.options().session_idle_seconds;
  asio::steady_timer timer(io_);
  while (!closed_) {
    timer.expires_after(std::chrono::milliseconds(static_cast<int64_t>(std::clamp(idle / 4, 0.05, 30.0) * 1000)));
    co_await timer.async_wait(use_tuple);
    const auto now = Clock::now();
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      Session& s = *it->second;
      if (s.in_flight == 0 && std::chrono::duration<double>(now - s.last_seen).count() > idle) {
        engine_.close_session(s, "session-expired");
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

asio::awaitable<void> HttpTransport::connection(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  boost::system::error_code ignored;
  stream.socket().set_option(tcp::no_delay(true), ignored);
  beast::flat_buffer buffer;
  bool first = true;
  while (!closed_) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(engine_.options().max_message_bytes);
    // A fresh connection must deliver its request in time (a slow sender holds
    // nothing for long); a kept-alive one may idle longer between requests.
    const auto deadline =
        std::chrono::milliseconds(static_cast<int64_t>(engine_.options().request_timeout_seconds * 1000));
    stream.expires_after(first ? deadline : std::max<std::chrono::milliseconds>(deadline, kKeepAliveIdle));
    first = false;
    auto [ec, n] = co_await http::async_read(stream, buffer, parser, use_tuple);
    if (ec == http::error::body_limit) {
      Request req = parser.release();
      Reply r = refusal(http::status::payload_too_large, nullptr, kServerError,
                        "the message is larger than " + std::to_string(engine_.options().max_message_bytes) + " bytes");
      co_await send(stream, req, std::move(r));
      break;
    }
    if (ec) break;  // closed, timed out, or not HTTP
    Request req = parser.release();
    stream.expires_never();
    const bool keep = co_await respond(stream, req);
    if (!keep || !req.keep_alive()) break;
  }
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<bool> HttpTransport::send(beast::tcp_stream& stream, const Request& req, Reply reply) {
  http::response<http::string_body> res{reply.status, req.version()};
  res.set(http::field::server, "kgb-mcp");
  if (!reply.body.empty()) res.set(http::field::content_type, reply.content_type);
  for (auto& [field, value] : reply.headers) res.set(field, value);
  res.keep_alive(req.keep_alive());
  res.body() = std::move(reply.body);
  res.prepare_payload();
  stream.expires_after(kWriteDeadline);
  auto [ec, n] = co_await http::async_write(stream, res, use_tuple);
  stream.expires_never();
  co_return !ec;
}

std::optional<HttpTransport::Reply> HttpTransport::refuse_unauthorized(const Request& req) const {
  const McpOptions& o = engine_.options();
  if (!o.bearer_token.empty()) {
    const auto auth = req.find(http::field::authorization);
    const std::string_view given = auth == req.end() ? std::string_view() : std::string_view(auth->value());
    const std::string expected = "Bearer " + o.bearer_token;
    if (!equal_constant_time(given, expected)) {
      Reply r = refusal(http::status::unauthorized, nullptr, kServerError,
                        "a valid bearer token is required (Authorization: Bearer ...)");
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"kgb\"");
      return r;
    }
  }
  if (const auto origin = req.find(http::field::origin); origin != req.end())
    if (!origin_allowed(origin->value(), o.allowed_origins))
      return refusal(http::status::forbidden, nullptr, kServerError, "origin " + std::string(origin->value()) + " is not allowed");
  return std::nullopt;
}

asio::awaitable<bool> HttpTransport::respond(beast::tcp_stream& stream, Request& req) {
  std::string_view target = req.target();
  target = target.substr(0, target.find('?'));
  if (target == "/health" && req.method() == http::verb::get)
    co_return co_await send(stream, req, Reply(http::status::ok, R"({"status":"ok"})"));
  if (target != "/mcp")
    co_return co_await send(stream, req, refusal(http::status::not_found, nullptr, kServerError,
                                                 "no route " + std::string(target) + "; the MCP endpoint is /mcp"));
  if (auto refused = refuse_unauthorized(req)) co_return co_await send(stream, req, std::move(*refused));

  if (req.method() == http::verb::post) co_return co_await post(stream, req);
  if (req.method() == http::verb::delete_) {
    const auto header = req.find("mcp-session-id");
    if (header == req.end())
      co_return co_await send(stream, req, refusal(http::status::bad_request, nullptr, kServerError, "Mcp-Session-Id header is required"));
    const auto it = sessions_.find(std::string(header->value()));
    if (it == sessions_.end())
      co_return co_await send(stream, req, refusal(http::status::not_found, nullptr, kSessionNotFound, "session not found"));
    engine_.close_session(*it->second, "session-ended");
    sessions_.erase(it);
    co_return co_await send(stream, req, Reply(http::status::ok, ""));
  }
  Reply r = refusal(http::status::method_not_allowed, nullptr, kServerError,
                    "use POST for messages and DELETE to end a session; this server offers no GET stream");
  r.headers.emplace_back("Allow", "POST, DELETE");
  co_return co_await send(stream, req, std::move(r));
}

asio::awaitable<bool> HttpTransport::post(beast::tcp_stream& stream, Request& req) {
  // Refusals are built before the co_await that sends them (see Reply).
  std::optional<Reply> refused;
  const std::string accept = lower(req[http::field::accept]);
  const bool accepts_sse = accept.find("text/event-stream") != std::string::npos;
  const auto version = req.find("mcp-protocol-version");
  if (lower(req[http::field::content_type]).rfind("application/json", 0) != 0)
    refused = refusal(http::status::unsupported_media_type, nullptr, kServerError, "Content-Type must be application/json");
  else if (!accept.empty() && !accepts_sse && accept.find("application/json") == std::string::npos &&
           accept.find("*/*") == std::string::npos)
    refused = refusal(http::status::not_acceptable, nullptr, kServerError,
                      "Accept must include application/json or text/event-stream");
  else if (version != req.end() && !supported_protocol_version(std::string(version->value())))
    refused = refusal(http::status::bad_request, nullptr, kServerError,
                      "unsupported MCP-Protocol-Version " + std::string(version->value()) + " (this server speaks " +
                          kProtocolVersion + ")");
  if (refused) co_return co_await send(stream, req, std::move(*refused));

  jsonrpc::Message message = jsonrpc::parse(req.body());
  using Kind = jsonrpc::Message::Kind;
  if (message.kind == Kind::Invalid) {
    Reply r(http::status::accepted, "");  // an invalid notification: nothing to answer
    if (message.error_response) r = Reply(http::status::bad_request, jsonrpc::serialize(*message.error_response));
    co_return co_await send(stream, req, std::move(r));
  }

  const auto header = req.find("mcp-session-id");
  if (message.kind == Kind::Request && message.method == "initialize") {
    if (header != req.end())
      refused = refusal(http::status::bad_request, message.id, jsonrpc::kInvalidRequest, "this session is already initialized");
    else if (closed_ || engine_.stopping())
      refused = refusal(http::status::service_unavailable, message.id, kServerError, "the server is stopping");
    else if (static_cast<int>(sessions_.size()) >= engine_.options().max_sessions)
      refused = refusal(http::status::service_unavailable, message.id, kServerError,
                        "too many sessions (" + std::to_string(sessions_.size()) + "); end one with DELETE first");
    if (refused) co_return co_await send(stream, req, std::move(*refused));
    std::string_view target = req.target();
    const auto q = target.find('?');
    const std::string task = q == std::string_view::npos ? "" : query_value(target.substr(q + 1), "task");
    auto session = engine_.open_session("http", new_session_id(), task);
    auto response = co_await engine_.handle(session, std::move(message), Notify{});
    Reply r(http::status::ok, jsonrpc::serialize(*response));
    // A failed initialize (an unknown ?task=) leaves no session behind.
    if (response->contains("result")) {
      sessions_[session->id] = session;
      r.headers.emplace_back("Mcp-Session-Id", session->id);
    }
    co_return co_await send(stream, req, std::move(r));
  }

  const auto found = header == req.end() ? sessions_.end() : sessions_.find(std::string(header->value()));
  if (header == req.end())
    refused = refusal(http::status::bad_request, message.id, kServerError,
                      "Mcp-Session-Id header is required (send initialize first)");
  else if (found == sessions_.end())
    refused = refusal(http::status::not_found, message.id, kSessionNotFound,
                      "session not found (it ended or never existed): initialize a new one");
  if (refused) co_return co_await send(stream, req, std::move(*refused));
  std::shared_ptr<Session> session = found->second;
  if (message.kind != Kind::Request) {
    co_await engine_.handle(session, std::move(message), Notify{});
    co_return co_await send(stream, req, Reply(http::status::accepted, ""));
  }
  if (accepts_sse && message.method == "tools/call")
    co_return co_await stream_events(stream, req, session, std::move(message));
  auto response = co_await engine_.handle(session, std::move(message), Notify{});
  // A request the client cancelled meanwhile: nothing to say.
  Reply r(http::status::accepted, "");
  if (response) r = Reply(http::status::ok, jsonrpc::serialize(*response));
  co_return co_await send(stream, req, std::move(r));
}

asio::awaitable<bool> HttpTransport::stream_events(beast::tcp_stream& stream, const Request& req, std::shared_ptr<Session> s,
                                                   jsonrpc::Message message) {
  auto outbox = std::make_shared<Outbox>(io_.get_executor());
  Notify notify = [outbox](const json& m) { outbox->push(m); };
  asio::co_spawn(io_, run_into(engine_, s, std::move(message), outbox, std::move(notify)), log_failure);

  http::response<http::empty_body> res{http::status::ok, req.version()};
  res.set(http::field::server, "kgb-mcp");
  res.set(http::field::content_type, "text/event-stream");
  res.set(http::field::cache_control, "no-cache");
  res.keep_alive(req.keep_alive());
  res.chunked(true);
  http::response_serializer<http::empty_body> serializer{res};
  stream.expires_after(kWriteDeadline);
  auto [header_ec, header_bytes] = co_await http::async_write_header(stream, serializer, use_tuple);
  if (header_ec) co_return false;  // the tool call goes on and is recorded
  for (;;) {
    while (!outbox->events.empty()) {
      const std::string event = "event: message\ndata: " + outbox->events.front() + "\n\n";
      outbox->events.pop_front();
      stream.expires_after(kWriteDeadline);
      auto [ec, n] = co_await asio::async_write(stream, http::make_chunk(asio::buffer(event)), use_tuple);
      if (ec) co_return false;
    }
    if (outbox->done) break;
    outbox->wake.expires_after(kKeepAliveComment);
    auto [ec] = co_await outbox->wake.async_wait(use_tuple);
    if (!ec && outbox->events.empty() && !outbox->done) {
      static const std::string comment = ": keep-alive\n\n";
      stream.expires_after(kWriteDeadline);
      auto [wec, n] = co_await asio::async_write(stream, http::make_chunk(asio::buffer(comment)), use_tuple);
      if (wec) co_return false;
    }
  }
  stream.expires_after(kWriteDeadline);
  auto [last_ec, last_n] = co_await asio::async_write(stream, http::make_chunk_last(), use_tuple);
  stream.expires_never();
  co_return !last_ec;
}

}  // namespace kgb::mcp
