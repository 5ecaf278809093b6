#include "kgb/mcp/server.h"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include "transports.h"

namespace kgb::mcp {

struct McpServer::Impl {
  explicit Impl(McpOptions o)
      : options(std::move(o)), loop(std::make_unique<asio::io_context>()), io(*loop), engine(options, io) {}
  // The pool first: a pool thread that has handed a result back still holds
  // work on the loop until its frame is gone. Then the loop, with what still
  // waits on it (kept-alive connections, timers), before the engine those
  // coroutines refer to.
  ~Impl() {
    signals.reset();
    stdio.reset();
    http.reset();
    engine.join_pool();
    loop.reset();
  }

  McpOptions options;
  std::unique_ptr<asio::io_context> loop;
  asio::io_context& io;
  Engine engine;
  std::unique_ptr<HttpTransport> http;
  std::unique_ptr<StdioTransport> stdio;
  std::optional<asio::signal_set> signals;
  std::thread thread;
  bool shutting_down = false;
  int signal_count = 0;

  // The first SIGINT/SIGTERM stops cleanly (tool calls in flight finish and
  // are recorded); a second one quits at once.
  void watch_signals() {
    signals.emplace(io, SIGINT, SIGTERM);
    wait_signal();
  }
  void wait_signal() {
    signals->async_wait([this](const boost::system::error_code& ec, int) {
      if (ec) return;
      if (++signal_count > 1) std::_Exit(130);
      std::fprintf(stderr, "kgb mcp-server: stopping: tool calls in flight finish and are recorded (interrupt again to quit at once)\n");
      shutdown("server-stopped");
      wait_signal();
    });
  }

  // On the I/O thread: ends every session, waits for the tool calls in flight,
  // ends the run's session, stops the loop.
  void shutdown(const std::string& reason) {
    if (shutting_down) return;
    shutting_down = true;
    engine.stop_accepting();
    if (http) http->close(reason);
    if (stdio) engine.close_session(*stdio->session(), reason);
    asio::co_spawn(io, finish(), asio::detached);
  }

  asio::awaitable<void> finish() {
    co_await engine.drain();
    engine.finish_run();
    if (signals) signals->cancel();
    io.stop();
  }
};

McpServer::McpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

McpServer::~McpServer() {
  stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

Result<std::unique_ptr<McpServer>> McpServer::create(McpOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  if (auto s = impl->engine.load(); !s) return s.error();
  return std::unique_ptr<McpServer>(new McpServer(std::move(impl)));
}

const std::string& McpServer::run_id() const { return impl_->engine.run_id(); }

std::string McpServer::url() const {
  const std::string& host = impl_->options.host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->http ? impl_->http->port() : 0) + "/mcp";
}

Status McpServer::serve_stdio(int in_fd, int out_fd) {
  Impl& im = *impl_;
  // Protocol messages only on the client's stdout: anything else this process
  // prints (a library, a trace) goes to stderr instead. The protocol's copy is
  // close-on-exec, so no compiler or runner started for a tool call inherits it.
  int protocol_fd = out_fd;
  if (out_fd == STDOUT_FILENO) {
    protocol_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return make_error("mcp.stdio", "cannot set up stdout");
  }
  std::signal(SIGPIPE, SIG_IGN);  // a vanished client is a failed write, not a dead server
  im.stdio = std::make_unique<StdioTransport>(im.engine, im.io, in_fd, protocol_fd, im.options.max_message_bytes);
  if (auto s = im.stdio->start([&im] { im.shutdown("session-ended"); }); !s) return s;
  im.watch_signals();
  im.io.run();
  im.stdio.reset();
  if (protocol_fd != out_fd) ::close(protocol_fd);
  return Ok{};
}

Result<uint16_t> McpServer::start_http() {
  Impl& im = *impl_;
  std::signal(SIGPIPE, SIG_IGN);
  im.http = std::make_unique<HttpTransport>(im.engine, im.io);
  auto port = im.http->start();
  if (!port) return port.error();
  im.watch_signals();
  im.thread = std::thread([&im] { im.io.run(); });
  return port;
}

void McpServer::wait() {
  if (impl_->thread.joinable()) impl_->thread.join();
}

void McpServer::stop() {
  Impl* im = impl_.get();
  if (!im->loop || im->io.stopped()) return;
  asio::post(im->io, [im] { im->shutdown("server-stopped"); });
}

}  // namespace kgb::mcp
