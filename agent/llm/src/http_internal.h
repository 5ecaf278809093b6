// Private to the HTTP client: connection objects, the pool and the helpers
// shared by the connect and exchange translation units.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>

#include "kgb/llm/http_client.h"

namespace kgb::llm {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace detail {

struct Connection {
  using TlsStream = beast::ssl_stream<beast::tcp_stream>;
  std::variant<beast::tcp_stream, TlsStream> stream;
  beast::flat_buffer buffer;  // bytes read past the last response
  std::string pool_key;
  Clock::time_point idle_since{};
  bool via_http_proxy = false;          // requests carry absolute-form targets
  std::string proxy_authorization;      // "Basic ..." for a plain-HTTP proxy

  explicit Connection(beast::tcp_stream tcp) : stream(std::in_place_index<0>, std::move(tcp)) {}
  beast::tcp_stream& lowest();
  void close();
};

// What the cancel hook can reach while a request is in flight (strand only).
struct ActiveOp {
  bool cancelled = false;
  std::function<void()> interrupt;
};

// One armed per-operation deadline.
struct Arm {
  std::chrono::milliseconds op_timeout{0};
  bool deadline_bound = false;  // the overall deadline, not the op timeout, is the limit
  bool expired = false;         // the overall deadline had already passed
};

Arm arm_stream(beast::tcp_stream& stream, std::chrono::milliseconds op_timeout, Clock::time_point deadline);
CallError transport_error(ErrorKind kind, std::string message, bool retryable);
CallError classify_io_error(const boost::system::error_code& ec, const Arm& arm, std::string_view during);
std::string base64_encode(std::string_view data);
std::string percent_decode(std::string_view text);

struct Connected {
  std::unique_ptr<Connection> conn;
  CallError error;
};

}  // namespace detail

struct HttpClient::Impl : std::enable_shared_from_this<HttpClient::Impl> {
  Impl(asio::any_io_executor executor, HttpClientConfig config);

  asio::awaitable<HttpExchange> run(HttpRequest request, HttpCallOptions options);
  asio::awaitable<detail::Connected> connect(const Url& url, const Url* proxy, Clock::time_point deadline,
                                             detail::ActiveOp& op);
  std::string pool_key(const Url& url, const Url* proxy) const;
  std::unique_ptr<detail::Connection> take_idle(const std::string& key);
  void put_idle(std::unique_ptr<detail::Connection> conn);

  asio::strand<asio::any_io_executor> strand;
  HttpClientConfig config;
  ProxySettings proxy_settings;
  asio::ssl::context tls{asio::ssl::context::tls_client};
  std::optional<kgb::Error> setup_error;  // e.g. an unreadable CA file: every call reports it

  mutable std::mutex pool_mutex;
  std::unordered_map<std::string, std::deque<std::unique_ptr<detail::Connection>>> idle;
  std::atomic<std::size_t> opened{0};
};

}  // namespace kgb::llm
