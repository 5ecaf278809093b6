// An HTTP/1.1 client for provider APIs: TLS with certificate and host-name
// verification and SNI, proxies (absolute-form for http, CONNECT for https),
// keep-alive connection pooling per origin, a deadline on every network
// operation and on the whole exchange, cancellation, and a body size limit.
//
// Threading: the client serialises all of its work on a strand of the
// executor it is given, so it may be shared by any number of concurrent
// coroutines and the executor may run on several threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "kgb/llm/cancel.h"
#include "kgb/llm/types.h"
#include "kgb/llm/url.h"

namespace kgb::llm {

using namespace std::chrono_literals;

struct Timeouts {
  std::chrono::milliseconds resolve = 10s;
  std::chrono::milliseconds connect = 10s;
  std::chrono::milliseconds tls_handshake = 10s;
  std::chrono::milliseconds proxy_connect = 10s;  // CONNECT request and its answer
  std::chrono::milliseconds write = 30s;
  // Until the status line and headers: a non-streaming call to a reasoning
  // model sends nothing until the whole answer is ready.
  std::chrono::milliseconds response_headers = 600s;
  std::chrono::milliseconds read_idle = 300s;  // between two reads of the body
};

struct TlsOptions {
  // PEM file of trusted CAs replacing the system store; empty: system store.
  std::string ca_file;
};

struct HttpClientConfig {
  Timeouts timeouts;
  TlsOptions tls;
  std::optional<ProxySettings> proxy;  // empty: from the environment
  std::size_t max_body_bytes = 64u << 20;
  std::size_t max_header_bytes = 64u << 10;
  std::size_t max_idle_per_origin = 64;
  std::chrono::milliseconds idle_expiry = 60s;  // idle pooled connections older than this are closed
  std::string user_agent = "kgb-llm/1";
};

struct HttpHeader {
  std::string name;
  std::string value;
};

struct HttpRequest {
  std::string method = "POST";
  Url url;
  std::vector<HttpHeader> headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  std::vector<HttpHeader> headers;  // names in lower case
  std::string body;                 // empty when a body sink consumed it

  std::string_view header(std::string_view lower_case_name) const;
};

// Receives body bytes of a 2xx response as they arrive. Returning false stops
// reading (the connection is then closed, never pooled).
using BodySink = std::function<bool(std::string_view chunk)>;

struct HttpCallOptions {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::optional<CancelToken> cancel;
  BodySink on_body;  // only for 2xx answers; others are always buffered
};

struct HttpExchange {
  HttpResponse response;
  std::optional<CallError> error;  // transport-level failure; HTTP statuses are not errors here
  bool connection_reused = false;
  bool body_complete = false;      // the body ended where HTTP framing said it would
  bool stopped_by_sink = false;
  std::size_t body_bytes = 0;
  std::chrono::milliseconds time_to_headers{0};
  std::chrono::milliseconds elapsed{0};
};

class HttpClient {
 public:
  HttpClient(boost::asio::any_io_executor executor, HttpClientConfig config = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends one request and reads the answer. Never throws for network or
  // protocol failures: they come back in HttpExchange::error.
  boost::asio::awaitable<HttpExchange> send(HttpRequest request, HttpCallOptions options = {});

  // The strand all of this client's I/O runs on.
  boost::asio::any_io_executor strand() const;
  const HttpClientConfig& config() const;
  std::size_t idle_connections() const;  // call from the strand
  std::size_t connections_opened() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kgb::llm
