// The two transports over one Engine, both on the engine's I/O thread.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "engine.h"

namespace kgb::mcp {

// Newline-delimited JSON-RPC on two descriptors: one session. A reader thread
// blocks on the input and posts each line to the I/O thread; responses are
// written whole, one line each, from the I/O thread.
class StdioTransport {
 public:
  StdioTransport(Engine& engine, asio::io_context& io, int in_fd, int out_fd, size_t max_message_bytes);
  ~StdioTransport();
  // Starts reading; `on_closed` runs on the I/O thread once the client has
  // closed its side (or the output broke).
  Status start(std::function<void()> on_closed);
  std::shared_ptr<Session> session() const { return session_; }

 private:
  void read_loop();
  void on_line(std::string line);
  void write(const json& message);

  Engine& engine_;
  asio::io_context& io_;
  int in_fd_, out_fd_;
  size_t max_message_bytes_;
  int wake_[2] = {-1, -1};  // stops the reader
  std::thread reader_;
  std::shared_ptr<Session> session_;
  std::function<void()> on_closed_;
  bool closed_ = false;
  bool output_broken_ = false;
};

// Streamable HTTP on one endpoint, /mcp (and GET /health). POST carries one
// JSON-RPC message; a request is answered with JSON, or for tools/call with an
// SSE stream (progress notifications, keep-alive comments, then the answer);
// notifications get 202. DELETE ends a session; GET is 405 (no server-initiated
// stream). Every read and write has a deadline.
class HttpTransport {
 public:
  HttpTransport(Engine& engine, asio::io_context& io);
  Result<uint16_t> start();
  // Stops accepting and ends every session (their attempts end once their
  // tool calls in flight are recorded).
  void close(const std::string& reason);
  uint16_t port() const { return port_; }

 private:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;
  struct Reply;

  asio::awaitable<void> accept_loop();
  asio::awaitable<void> connection(asio::ip::tcp::socket socket);
  asio::awaitable<void> reap_idle_sessions();
  // Answers one request; false when the connection must close.
  asio::awaitable<bool> respond(boost::beast::tcp_stream& stream, Request& req);
  asio::awaitable<bool> post(boost::beast::tcp_stream& stream, Request& req);
  asio::awaitable<bool> stream_events(boost::beast::tcp_stream& stream, const Request& req, std::shared_ptr<Session> s,
                                      jsonrpc::Message message);
  asio::awaitable<bool> send(boost::beast::tcp_stream& stream, const Request& req, Reply reply);
  std::optional<Reply> refuse_unauthorized(const Request& req) const;
  // A refusal: `status` with a JSON-RPC error body.
  static Reply refusal(boost::beast::http::status status, const json& id, int code, std::string message);

  Engine& engine_;
  asio::io_context& io_;
  std::optional<asio::ip::tcp::acceptor> acceptor_;
  uint16_t port_ = 0;
  bool closed_ = false;
  std::map<std::string, std::shared_ptr<Session>> sessions_;
};

}  // namespace kgb::mcp
