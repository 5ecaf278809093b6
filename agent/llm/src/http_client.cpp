// HTTP/1.1 exchanges over pooled connections. Connection set-up (DNS, TCP,
// TLS to the proxy, proxy tunnel, TLS) lives in http_connect.cpp; this file
// sends a request on a connection and reads the answer, streaming the body to
// a sink when asked.
#include "kgb/llm/http_client.h"

#include <algorithm>
#include <memory>
#include <tuple>
#include <type_traits>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>

#include "http_internal.h"
#include "kgb/llm/http_body.h"

namespace kgb::llm {

namespace http = beast::http;

namespace detail {

CallError transport_error(ErrorKind kind, std::string message, bool retryable) {
  CallError error;
  error.kind = kind;
  error.message = std::move(message);
  error.retryable = retryable;
  return error;
}

CallError classify_io_error(const boost::system::error_code& ec, const Arm& arm, std::string_view during) {
  using boost::system::error_code;
  if (ec == beast::error::timeout) {
    if (arm.deadline_bound) return transport_error(ErrorKind::Deadline, "request deadline passed while " + std::string(during), false);
    return transport_error(ErrorKind::Timeout, std::string(during) + " timed out after " +
                                                   std::to_string(arm.op_timeout.count()) + " ms", true);
  }
  if (ec == asio::error::operation_aborted) return transport_error(ErrorKind::Cancelled, "cancelled while " + std::string(during), false);
  if (ec == http::error::body_limit) return transport_error(ErrorKind::BodyTooLarge, "response body exceeds the size limit", false);
  if (ec == http::error::header_limit) return transport_error(ErrorKind::BodyTooLarge, "response header exceeds the size limit", false);
  if (ec == http::error::partial_message || ec == http::error::end_of_stream || ec == asio::error::eof ||
      ec == asio::ssl::error::stream_truncated)
    return transport_error(ErrorKind::Truncated, "connection closed while " + std::string(during), true);
  if (ec.category() == boost::system::error_code(http::error::bad_version).category())
    return transport_error(ErrorKind::Malformed, "invalid HTTP from the server while " + std::string(during) + ": " + ec.message(), false);
  return transport_error(ErrorKind::Network, std::string(during) + " failed: " + ec.message(), true);
}

Arm arm_stream(beast::tcp_stream& stream, std::chrono::milliseconds op_timeout, Clock::time_point deadline) {
  Arm arm;
  arm.op_timeout = op_timeout;
  const auto now = Clock::now();
  if (now >= deadline) {
    arm.expired = true;
    arm.deadline_bound = true;
    return arm;
  }
  auto until = now + op_timeout;
  if (deadline <= until) {
    until = deadline;
    arm.deadline_bound = true;
  }
  stream.expires_at(until);
  return arm;
}

}  // namespace detail

using namespace detail;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// Bounds the reads of a body without a timer operation per read: reads only
// record progress, and the timer, when it fires, re-arms itself at the
// moment the idle limit would really pass. On expiry it closes the connection.
class ReadWatchdog : public std::enable_shared_from_this<ReadWatchdog> {
 public:
  ReadWatchdog(const asio::any_io_executor& executor, std::chrono::milliseconds idle, Clock::time_point deadline,
               std::function<void()> on_expiry)
      : timer_(executor), idle_(idle), deadline_(deadline), last_(Clock::now()), on_expiry_(std::move(on_expiry)) {}

  bool expired() const { return last_ >= deadline_; }
  void start() { arm(); }
  void progress() { last_ = Clock::now(); }
  void stop() {
    stopped_ = true;
    timer_.cancel();
  }
  bool fired() const { return fired_; }
  bool deadline_bound() const { return deadline_bound_; }

 private:
  Clock::time_point due() const {
    const Clock::time_point idle_end = idle_.count() > 0 && last_ < Clock::time_point::max() - idle_ ? last_ + idle_
                                                                                                      : Clock::time_point::max();
    return std::min(idle_end, deadline_);
  }
  void arm() {
    timer_.expires_at(due());
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->stopped_) return;
      const auto now = Clock::now();
      if (now < self->due()) {
        self->arm();  // there was progress since the timer was set
        return;
      }
      self->fired_ = true;
      self->deadline_bound_ = now >= self->deadline_;
      self->on_expiry_();
    });
  }

  asio::steady_timer timer_;
  std::chrono::milliseconds idle_;
  Clock::time_point deadline_;
  Clock::time_point last_;
  std::function<void()> on_expiry_;
  bool stopped_ = false, fired_ = false, deadline_bound_ = false;
};

bool is_stale_connection_error(const boost::system::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe || ec == http::error::partial_message ||
         ec == asio::ssl::error::stream_truncated;
}

struct ExchangeResult {
  HttpExchange exchange;
  bool stale = false;       // failed on a reused connection before any response byte
  bool reusable = false;    // the connection may go back to the pool
};

template <class Stream>
asio::awaitable<ExchangeResult> exchange_on(Stream& stream, Connection& conn, const HttpRequest& request,
                                            const HttpCallOptions& options, const HttpClientConfig& config,
                                            bool reused, ActiveOp& op) {
  ExchangeResult out;
  HttpExchange& ex = out.exchange;
  ex.connection_reused = reused;
  const auto start = Clock::now();
  auto& lowest = beast::get_lowest_layer(stream);

  http::request<http::string_body> req;
  req.version(11);
  const http::verb verb = http::string_to_verb(request.method);
  if (verb == http::verb::unknown) {
    ex.error = transport_error(ErrorKind::Config, "unsupported HTTP method " + request.method, false);
    co_return out;
  }
  req.method(verb);
  // To an http:// origin through a proxy (no tunnel) the request line carries the absolute URL.
  req.target(conn.via_http_proxy ? request.url.to_string() : request.url.target);
  req.set(http::field::host, request.url.host_header());
  req.set(http::field::user_agent, config.user_agent);
  if (conn.via_http_proxy && !conn.proxy_authorization.empty())
    req.set(http::field::proxy_authorization, conn.proxy_authorization);
  for (const HttpHeader& h : request.headers) req.set(h.name, h.value);
  req.keep_alive(true);
  req.body() = request.body;
  req.prepare_payload();

  Arm arm = arm_stream(lowest, config.timeouts.write, options.deadline);
  if (arm.expired) {
    ex.error = transport_error(ErrorKind::Deadline, "request deadline passed before sending", false);
    co_return out;
  }
  auto [write_ec, written] = co_await http::async_write(stream, req, use_tuple);
  if (op.cancelled) write_ec = asio::error::operation_aborted;
  if (write_ec) {
    out.stale = reused && is_stale_connection_error(write_ec);
    ex.error = classify_io_error(write_ec, arm, "sending the request");
    co_return out;
  }

  http::response_parser<http::buffer_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(config.max_header_bytes, UINT32_MAX)));
  parser.body_limit(config.max_body_bytes);
  if (verb == http::verb::head) parser.skip(true);

  arm = arm_stream(lowest, config.timeouts.response_headers, options.deadline);
  if (arm.expired) {
    ex.error = transport_error(ErrorKind::Deadline, "request deadline passed before the response", false);
    co_return out;
  }
  auto [header_ec, header_bytes] = co_await http::async_read_header(stream, conn.buffer, parser, use_tuple);
  if (op.cancelled) header_ec = asio::error::operation_aborted;
  if (header_ec) {
    out.stale = reused && !parser.got_some() && is_stale_connection_error(header_ec);
    ex.error = classify_io_error(header_ec, arm, "waiting for the response headers");
    if (ex.error->kind == ErrorKind::Truncated) {
      // No status line yet: this is a dropped connection, not a cut body.
      ex.error->kind = ErrorKind::Network;
      ex.error->message = "connection closed before the response arrived";
    }
    co_return out;
  }
  ex.time_to_headers = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  const auto& head = parser.get();
  ex.response.status = head.result_int();
  for (const auto& field : head) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    ex.response.headers.push_back({std::move(name), std::string(field.value())});
  }

  const bool to_sink = options.on_body && ex.response.status >= 200 && ex.response.status < 300;
  if (parser.is_done()) {
    ex.body_complete = true;
    out.reusable = parser.keep_alive();
    co_return out;
  }
  // The body is read here rather than through Beast: one read of the socket
  // then yields every chunk and event it holds with no copy, and the idle
  // limit is a watchdog timer re-armed lazily rather than one timer per read.
  // A streamed answer is many small chunks; this path is the client's hot loop.
  BodyDecoder body(parser.chunked() ? BodyDecoder::Framing::Chunked
                   : parser.content_length() ? BodyDecoder::Framing::Length
                                             : BodyDecoder::Framing::UntilClose,
                   parser.content_length().value_or(0), config.max_body_bytes);
  const BodyDecoder::Sink sink = [&](std::string_view piece) {
    if (to_sink) return options.on_body(piece);
    ex.response.body.append(piece);
    return true;
  };
  auto finish_body = [&](BodyDecoder::Status status) {
    ex.body_bytes = body.payload_bytes();
    switch (status) {
      case BodyDecoder::Status::Done: ex.body_complete = true; break;
      case BodyDecoder::Status::Stopped: ex.stopped_by_sink = true; break;
      case BodyDecoder::Status::TooLarge:
        ex.error = transport_error(ErrorKind::BodyTooLarge, "response body exceeds the size limit", false);
        break;
      case BodyDecoder::Status::Malformed:
        ex.error = transport_error(ErrorKind::Malformed, "invalid HTTP from the server while reading the response body: bad chunk framing", false);
        break;
      case BodyDecoder::Status::More: break;
    }
  };

  // Bytes that arrived with the header come first.
  BodyDecoder::Status status = BodyDecoder::Status::More;
  {
    const std::string_view early(static_cast<const char*>(conn.buffer.data().data()), conn.buffer.size());
    std::size_t used = 0;
    status = body.feed(early, used, sink);
    conn.buffer.consume(used);
  }
  if (status != BodyDecoder::Status::More) {
    finish_body(status);
    out.reusable = status == BodyDecoder::Status::Done && parser.keep_alive() && conn.buffer.size() == 0;
    co_return out;
  }

  lowest.expires_never();  // the watchdog below bounds the body reads
  auto watchdog = std::make_shared<ReadWatchdog>(lowest.get_executor(), config.timeouts.read_idle, options.deadline,
                                                 [&conn] { conn.close(); });
  struct StopWatchdog {
    ReadWatchdog& dog;
    ~StopWatchdog() { dog.stop(); }
  } stop_watchdog{*watchdog};
  if (watchdog->expired()) {
    ex.error = transport_error(ErrorKind::Deadline, "request deadline passed while reading the body", false);
    co_return out;
  }
  watchdog->start();

  constexpr std::size_t read_size = 64 * 1024;
  const auto buffer = std::make_unique_for_overwrite<char[]>(read_size);
  for (;;) {
    boost::system::error_code read_ec;
    std::size_t n = 0;
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>)
      std::tie(read_ec, n) = co_await stream.socket().async_read_some(asio::buffer(buffer.get(), read_size), use_tuple);
    else
      std::tie(read_ec, n) = co_await stream.async_read_some(asio::buffer(buffer.get(), read_size), use_tuple);
    watchdog->progress();
    if (op.cancelled) read_ec = asio::error::operation_aborted;
    else if (watchdog->fired()) read_ec = beast::error::timeout;
    if (n > 0) {
      std::size_t used = 0;
      status = body.feed(std::string_view(buffer.get(), n), used, sink);
      if (status != BodyDecoder::Status::More) {
        finish_body(status);
        // Bytes past the body would belong to a response never asked for.
        out.reusable = status == BodyDecoder::Status::Done && parser.keep_alive() && used == n && !read_ec;
        co_return out;
      }
    }
    if (read_ec == asio::error::eof || read_ec == asio::ssl::error::stream_truncated) {
      if (body.end_of_input() == BodyDecoder::Status::Done) {
        finish_body(BodyDecoder::Status::Done);
        co_return out;
      }
      read_ec = http::error::partial_message;
    }
    if (read_ec) {
      ex.body_bytes = body.payload_bytes();
      Arm arm;
      arm.op_timeout = config.timeouts.read_idle;
      arm.deadline_bound = watchdog->deadline_bound();
      ex.error = classify_io_error(read_ec, arm, "reading the response body");
      co_return out;
    }
  }
}

}  // namespace

HttpClient::HttpClient(asio::any_io_executor executor, HttpClientConfig config)
    : impl_(std::make_shared<Impl>(std::move(executor), std::move(config))) {}

HttpClient::~HttpClient() = default;

asio::any_io_executor HttpClient::strand() const { return impl_->strand; }
const HttpClientConfig& HttpClient::config() const { return impl_->config; }
std::size_t HttpClient::connections_opened() const { return impl_->opened.load(); }

std::size_t HttpClient::idle_connections() const {
  std::lock_guard lock(impl_->pool_mutex);
  std::size_t n = 0;
  for (const auto& [key, list] : impl_->idle) n += list.size();
  return n;
}

asio::awaitable<HttpExchange> HttpClient::send(HttpRequest request, HttpCallOptions options) {
  // Hop onto the client's strand: the pool and the cancel hook are touched
  // only there, whatever executor the caller runs on.
  std::shared_ptr<Impl> impl = impl_;
  co_return co_await asio::co_spawn(impl->strand, impl->run(std::move(request), std::move(options)),
                                    asio::use_awaitable);
}

asio::awaitable<HttpExchange> HttpClient::Impl::run(HttpRequest request, HttpCallOptions options) {
  const auto start = Clock::now();
  HttpExchange result;
  auto finish = [&](HttpExchange ex) {
    ex.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    return ex;
  };
  if (setup_error) {
    result.error = transport_error(ErrorKind::Config, setup_error->message, false);
    co_return finish(std::move(result));
  }
  const Url* proxy = proxy_settings.proxy_for(request.url);

  auto op = std::make_shared<ActiveOp>();
  uint64_t cancel_handle = 0;
  if (options.cancel) {
    // The token may fire on any thread: hop onto the strand before touching I/O.
    std::weak_ptr<ActiveOp> weak = op;
    auto executor = strand;
    cancel_handle = options.cancel->on_cancel([weak, executor] {
      asio::post(executor, [weak] {
        if (auto live = weak.lock()) {
          live->cancelled = true;
          if (live->interrupt) live->interrupt();
        }
      });
    });
  }
  struct Unregister {
    std::optional<CancelToken>& token;
    uint64_t handle;
    ~Unregister() {
      if (token && handle) token->remove(handle);
    }
  } unregister{options.cancel, cancel_handle};

  try {
    const std::string key = pool_key(request.url, proxy);
    for (int round = 0; round < 2; ++round) {
      if (op->cancelled) {
        result.error = transport_error(ErrorKind::Cancelled, "cancelled before sending", false);
        co_return finish(std::move(result));
      }
      std::unique_ptr<Connection> conn = take_idle(key);
      const bool reused = conn != nullptr;
      if (!conn) {
        auto connected = co_await connect(request.url, proxy, options.deadline, *op);
        if (!connected.conn) {
          result.error = std::move(connected.error);
          co_return finish(std::move(result));
        }
        conn = std::move(connected.conn);
        conn->pool_key = key;
      }
      Connection* raw = conn.get();
      op->interrupt = [raw] { raw->close(); };
      ExchangeResult ex = co_await std::visit(
          [&](auto& stream) { return exchange_on(stream, *raw, request, options, config, reused, *op); },
          conn->stream);
      op->interrupt = nullptr;
      if (ex.stale && round == 0) continue;  // the server had closed the idle connection: once more, fresh
      if (ex.reusable && !ex.exchange.error && !op->cancelled) put_idle(std::move(conn));
      co_return finish(std::move(ex.exchange));
    }
  } catch (const boost::system::system_error& e) {
    // Asio cancellation of the calling coroutine surfaces as an exception on
    // the next suspension point.
    op->interrupt = nullptr;
    const bool aborted = e.code() == asio::error::operation_aborted;
    result.error = transport_error(aborted ? ErrorKind::Cancelled : ErrorKind::Network,
                                   aborted ? std::string("cancelled") : std::string(e.what()), !aborted);
  }
  co_return finish(std::move(result));
}

}  // namespace kgb::llm
