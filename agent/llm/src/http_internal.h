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

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// The TLS session to the proxy as the next layer of a second TLS session (to
// the origin, through a CONNECT tunnel). Asio's ssl::stream wants a next layer
// with lowest_layer(), which Beast's ssl_stream lacks; this adds it and
// forwards the I/O. next_layer() lets beast::get_lowest_layer reach the TCP
// stream, where the timeouts are armed.
class ProxyTlsLayer {
 public:
  using next_layer_type = TlsStream;
  using lowest_layer_type = beast::tcp_stream::socket_type;
  using executor_type = TlsStream::executor_type;

  explicit ProxyTlsLayer(TlsStream proxy_tls) : proxy_tls_(std::move(proxy_tls)) {}
  executor_type get_executor() { return proxy_tls_.get_executor(); }
  TlsStream& next_layer() { return proxy_tls_; }
  lowest_layer_type& lowest_layer() { return beast::get_lowest_layer(proxy_tls_).socket(); }
  template <class Buffers, class Token>
  auto async_read_some(const Buffers& buffers, Token&& token) {
    return proxy_tls_.async_read_some(buffers, std::forward<Token>(token));
  }
  template <class Buffers, class Token>
  auto async_write_some(const Buffers& buffers, Token&& token) {
    return proxy_tls_.async_write_some(buffers, std::forward<Token>(token));
  }

 private:
  TlsStream proxy_tls_;
};
using TunnelTlsStream = beast::ssl_stream<ProxyTlsLayer>;  // TLS to the origin inside TLS to the proxy

struct Connection {
  // Plain; TLS to the origin or to an https:// proxy; TLS to the origin
  // through a tunnel in TLS to the proxy.
  std::variant<beast::tcp_stream, TlsStream, TunnelTlsStream> stream;
  beast::flat_buffer buffer;  // bytes read past the last response
  std::string pool_key;
  Clock::time_point idle_since{};
  bool via_http_proxy = false;          // requests carry absolute-form targets
  std::string proxy_authorization;      // "Basic ..." sent to the proxy with them

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
