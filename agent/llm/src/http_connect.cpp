// Connection set-up: DNS with a deadline, TCP connect, TLS to an https://
// proxy, a CONNECT tunnel through the proxy, the TLS handshake with SNI and
// certificate + host-name verification; and the keep-alive pool.
#include <poll.h>

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>

#include "http_internal.h"

namespace kgb::llm {

namespace http = beast::http;
using namespace detail;

namespace detail {

beast::tcp_stream& Connection::lowest() {
  return std::visit([](auto& s) -> beast::tcp_stream& { return beast::get_lowest_layer(s); }, stream);
}

void Connection::close() {
  // Closing the socket ends any pending operation at once; a TLS close_notify
  // is skipped on purpose (it could block on a dead peer).
  boost::system::error_code ignored;
  lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
  lowest().close();
}

std::string base64_encode(std::string_view data) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const unsigned v = (unsigned char)data[i] << 16 | (unsigned char)data[i + 1] << 8 | (unsigned char)data[i + 2];
    out += alphabet[v >> 18 & 63];
    out += alphabet[v >> 12 & 63];
    out += alphabet[v >> 6 & 63];
    out += alphabet[v & 63];
  }
  if (i + 1 == data.size()) {
    const unsigned v = (unsigned char)data[i] << 16;
    out += alphabet[v >> 18 & 63];
    out += alphabet[v >> 12 & 63];
    out += "==";
  } else if (i + 2 == data.size()) {
    const unsigned v = (unsigned char)data[i] << 16 | (unsigned char)data[i + 1] << 8;
    out += alphabet[v >> 18 & 63];
    out += alphabet[v >> 12 & 63];
    out += alphabet[v >> 6 & 63];
    out += '=';
  }
  return out;
}

std::string percent_decode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace detail

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

std::string tls_failure_message(SSL* ssl, const boost::system::error_code& ec, const std::string& host) {
  const long verify = SSL_get_verify_result(ssl);
  if (verify != X509_V_OK)
    return "TLS certificate verification failed for " + host + ": " + X509_verify_cert_error_string(verify);
  return "TLS handshake with " + host + " failed: " + ec.message();
}

// Client handshake on `stream` (TLS to the origin or to the proxy), with SNI
// and certificate + host-name verification against `peer`'s host. `who`
// names the peer in errors ("api.example.com", "proxy proxy.example:3128").
template <class Stream>
asio::awaitable<std::optional<CallError>> tls_handshake(Stream& stream, const Url& peer, const std::string& who,
                                                         const HttpClientConfig& config, Clock::time_point deadline,
                                                         ActiveOp& op) {
  // SNI carries names only, never address literals (RFC 6066).
  if (!peer.host_is_ip_literal() && !SSL_set_tlsext_host_name(stream.native_handle(), peer.host.c_str()))
    co_return transport_error(ErrorKind::Tls, "cannot set the TLS server name for " + who, false);
  stream.set_verify_mode(asio::ssl::verify_peer);
  stream.set_verify_callback(
      [verify_host = asio::ssl::host_name_verification(peer.host)](bool preverified, asio::ssl::verify_context& ctx) mutable {
        const bool ok = verify_host(preverified, ctx);
        // Record why, so the error names a host-name mismatch rather than a bare failure.
        if (!ok && preverified) X509_STORE_CTX_set_error(ctx.native_handle(), X509_V_ERR_HOSTNAME_MISMATCH);
        return ok;
      });
  const Arm arm = arm_stream(beast::get_lowest_layer(stream), config.timeouts.tls_handshake, deadline);
  if (arm.expired) co_return transport_error(ErrorKind::Deadline, "request deadline passed before the TLS handshake with " + who, false);
  auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::client, use_tuple);
  if (op.cancelled) ec = asio::error::operation_aborted;
  if (!ec) co_return std::nullopt;
  if (ec == beast::error::timeout || ec == asio::error::operation_aborted)
    co_return classify_io_error(ec, arm, "the TLS handshake with " + who);
  co_return transport_error(ErrorKind::Tls, tls_failure_message(stream.native_handle(), ec, who), false);
}

// CONNECT host:port on `stream` (plain TCP or TLS to the proxy); on success
// the stream is a tunnel to the origin.
template <class Stream>
asio::awaitable<std::optional<CallError>> open_tunnel(Stream& stream, const Url& url, const std::string& hop_name,
                                                       const std::string& proxy_authorization,
                                                       const HttpClientConfig& config, Clock::time_point deadline,
                                                       ActiveOp& op) {
  http::request<http::empty_body> req{http::verb::connect, url.host_port(), 11};
  req.set(http::field::host, url.host_port());
  req.set(http::field::user_agent, config.user_agent);
  if (!proxy_authorization.empty()) req.set(http::field::proxy_authorization, proxy_authorization);
  const Arm arm = arm_stream(beast::get_lowest_layer(stream), config.timeouts.proxy_connect, deadline);
  if (arm.expired) co_return transport_error(ErrorKind::Deadline, "request deadline passed before CONNECT", false);
  auto [write_ec, written] = co_await http::async_write(stream, req, use_tuple);
  if (op.cancelled) write_ec = asio::error::operation_aborted;
  if (write_ec) co_return classify_io_error(write_ec, arm, "sending CONNECT to " + hop_name);
  http::response_parser<http::empty_body> parser;
  parser.skip(true);  // a CONNECT answer has no body: what follows is the tunnel
  beast::flat_buffer buffer;
  auto [read_ec, read] = co_await http::async_read(stream, buffer, parser, use_tuple);
  if (op.cancelled) read_ec = asio::error::operation_aborted;
  if (read_ec) {
    CallError error = classify_io_error(read_ec, arm, "waiting for the CONNECT answer of " + hop_name);
    if (error.kind == ErrorKind::Network || error.kind == ErrorKind::Truncated) error.kind = ErrorKind::Proxy;
    co_return error;
  }
  const int status = parser.get().result_int();
  if (status / 100 != 2) {
    CallError error = transport_error(ErrorKind::Proxy, hop_name + " refused CONNECT " + url.host_port() + " with HTTP " +
                                                            std::to_string(status), status == 502 || status == 503 || status == 504);
    error.http_status = status;
    co_return error;
  }
  if (buffer.size() != 0) co_return transport_error(ErrorKind::Proxy, hop_name + " sent data before the TLS handshake", false);
  co_return std::nullopt;
}

}  // namespace

HttpClient::Impl::Impl(asio::any_io_executor executor, HttpClientConfig cfg)
    : strand(asio::make_strand(executor)), config(std::move(cfg)) {
  std::vector<kgb::Error> proxy_errors;
  proxy_settings = config.proxy ? *config.proxy : ProxySettings::from_environment(&proxy_errors);
  if (!proxy_errors.empty()) setup_error = proxy_errors.front();

  SSL_CTX_set_min_proto_version(tls.native_handle(), TLS1_2_VERSION);
  tls.set_verify_mode(asio::ssl::verify_peer);
  boost::system::error_code ec;
  if (config.tls.ca_file.empty()) {
    tls.set_default_verify_paths(ec);
    if (ec) setup_error = make_error("tls.ca", "cannot load the system CA store: " + ec.message());
  } else {
    tls.load_verify_file(config.tls.ca_file, ec);
    if (ec) setup_error = make_error("tls.ca", "cannot load the CA file " + config.tls.ca_file + ": " + ec.message());
  }
}

std::string HttpClient::Impl::pool_key(const Url& url, const Url* proxy) const {
  std::string key = url.scheme + "://" + url.host_port();
  if (proxy) key += " via " + proxy->scheme + "://" + proxy->host_port();
  return key;
}

std::unique_ptr<Connection> HttpClient::Impl::take_idle(const std::string& key) {
  std::lock_guard lock(pool_mutex);
  auto it = idle.find(key);
  if (it == idle.end()) return nullptr;
  auto& list = it->second;
  const auto now = Clock::now();
  while (!list.empty()) {
    std::unique_ptr<Connection> conn = std::move(list.back());
    list.pop_back();
    if (now - conn->idle_since > config.idle_expiry) {
      conn->close();
      continue;
    }
    // An idle HTTP connection must have nothing to read: readable means the
    // peer closed it (or sent garbage), so it is not worth a request.
    pollfd pfd{conn->lowest().socket().native_handle(), POLLIN, 0};
    if (::poll(&pfd, 1, 0) != 0 || conn->buffer.size() != 0) {
      conn->close();
      continue;
    }
    return conn;
  }
  return nullptr;
}

void HttpClient::Impl::put_idle(std::unique_ptr<Connection> conn) {
  std::lock_guard lock(pool_mutex);
  auto& list = idle[conn->pool_key];
  conn->idle_since = Clock::now();
  list.push_back(std::move(conn));
  while (list.size() > config.max_idle_per_origin) {
    list.front()->close();
    list.pop_front();
  }
}

asio::awaitable<Connected> HttpClient::Impl::connect(const Url& url, const Url* proxy, Clock::time_point deadline,
                                                     ActiveOp& op) {
  Connected out;
  const Url& first_hop = proxy ? *proxy : url;
  const std::string hop_name = proxy ? "proxy " + proxy->host_port() : url.host_port();

  // DNS. Literal addresses skip the resolver entirely.
  tcp::resolver::results_type endpoints;
  boost::system::error_code addr_ec;
  const auto literal = asio::ip::make_address(first_hop.host, addr_ec);
  if (!addr_ec) {
    endpoints = tcp::resolver::results_type::create(tcp::endpoint(literal, first_hop.port), first_hop.host,
                                                    std::to_string(first_hop.port));
  } else {
    const auto now = Clock::now();
    if (now >= deadline) {
      out.error = transport_error(ErrorKind::Deadline, "request deadline passed before resolving " + first_hop.host, false);
      co_return out;
    }
    const bool deadline_bound = deadline <= now + config.timeouts.resolve;
    struct ResolveState {
      explicit ResolveState(const asio::any_io_executor& ex) : resolver(ex), timer(ex) {}
      tcp::resolver resolver;
      asio::steady_timer timer;
      bool timed_out = false;
    };
    auto state = std::make_shared<ResolveState>(strand);
    state->timer.expires_at(deadline_bound ? deadline : now + config.timeouts.resolve);
    state->timer.async_wait([state](boost::system::error_code ec) {
      if (!ec) {
        state->timed_out = true;
        state->resolver.cancel();
      }
    });
    op.interrupt = [state] { state->resolver.cancel(); };
    auto [ec, results] = co_await state->resolver.async_resolve(first_hop.host, std::to_string(first_hop.port), use_tuple);
    op.interrupt = nullptr;
    state->timer.cancel();
    if (op.cancelled) {
      out.error = transport_error(ErrorKind::Cancelled, "cancelled while resolving " + first_hop.host, false);
      co_return out;
    }
    if (state->timed_out) {
      out.error = deadline_bound ? transport_error(ErrorKind::Deadline, "request deadline passed while resolving " + first_hop.host, false)
                                 : transport_error(ErrorKind::Timeout, "resolving " + first_hop.host + " timed out", true);
      co_return out;
    }
    if (ec) {
      // "Host not found" will not heal by retrying; a temporary DNS failure may.
      const bool temporary = ec == asio::error::host_not_found_try_again;
      out.error = transport_error(ErrorKind::Network, "cannot resolve " + first_hop.host + ": " + ec.message(), temporary);
      co_return out;
    }
    endpoints = std::move(results);
  }

  beast::tcp_stream tcp_stream(strand);
  op.interrupt = [&tcp_stream] { tcp_stream.close(); };
  Arm arm = arm_stream(tcp_stream, config.timeouts.connect, deadline);
  if (arm.expired) {
    op.interrupt = nullptr;
    out.error = transport_error(ErrorKind::Deadline, "request deadline passed before connecting", false);
    co_return out;
  }
  auto [connect_ec, endpoint] = co_await tcp_stream.async_connect(endpoints, use_tuple);
  op.interrupt = nullptr;
  if (op.cancelled) connect_ec = asio::error::operation_aborted;
  if (connect_ec) {
    out.error = classify_io_error(connect_ec, arm, "connecting to " + hop_name);
    co_return out;
  }
  opened.fetch_add(1);
  boost::system::error_code ignored;
  tcp_stream.socket().set_option(tcp::no_delay(true), ignored);

  auto conn = std::make_unique<Connection>(std::move(tcp_stream));
  Connection* raw = conn.get();
  op.interrupt = [raw] { raw->close(); };
  struct ClearInterrupt {
    ActiveOp& op;
    ~ClearInterrupt() { op.interrupt = nullptr; }
  } clear{op};

  std::string proxy_authorization;
  if (proxy && !proxy->userinfo.empty()) proxy_authorization = "Basic " + base64_encode(percent_decode(proxy->userinfo));

  if (proxy && proxy->https()) {
    // An https:// proxy: TLS with the proxy first, verified against its name.
    auto tcp = std::move(std::get<0>(conn->stream));
    auto& proxy_tls = conn->stream.emplace<1>(std::move(tcp), tls);
    if (auto error = co_await tls_handshake(proxy_tls, *proxy, hop_name, config, deadline, op)) {
      out.error = std::move(*error);
      co_return out;
    }
  }

  if (proxy && url.https()) {
    // Tunnel: CONNECT host:port, then TLS end to end through it.
    auto error = co_await std::visit(
        [&](auto& stream) { return open_tunnel(stream, url, hop_name, proxy_authorization, config, deadline, op); },
        conn->stream);
    if (error) {
      out.error = std::move(*error);
      co_return out;
    }
  } else if (proxy) {
    conn->via_http_proxy = true;
    conn->proxy_authorization = proxy_authorization;
  }

  if (url.https()) {
    std::optional<CallError> error;
    if (conn->stream.index() == 0) {
      auto tcp = std::move(std::get<0>(conn->stream));
      error = co_await tls_handshake(conn->stream.emplace<1>(std::move(tcp), tls), url, url.host, config, deadline, op);
    } else {
      // The tunnel runs inside TLS to the proxy: a second session, to the origin.
      auto proxy_tls = std::move(std::get<1>(conn->stream));
      error = co_await tls_handshake(conn->stream.emplace<2>(ProxyTlsLayer(std::move(proxy_tls)), tls), url, url.host,
                                     config, deadline, op);
    }
    if (error) {
      out.error = std::move(*error);
      co_return out;
    }
  }
  out.conn = std::move(conn);
  co_return out;
}

}  // namespace kgb::llm
