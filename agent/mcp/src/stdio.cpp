#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

#include "transports.h"

namespace kgb::mcp {

namespace {

// Each message is handled as a coroutine of its own, so a ping is answered
// while an evaluation runs.
asio::awaitable<void> handle_line(Engine& engine, std::shared_ptr<Session> session, jsonrpc::Message message,
                                  std::function<void(const json&)> write) {
  auto response = co_await engine.handle(session, std::move(message), write);
  if (response) write(*response);
}

}  // namespace

StdioTransport::StdioTransport(Engine& engine, asio::io_context& io, int in_fd, int out_fd, size_t max_message_bytes)
    : engine_(engine), io_(io), in_fd_(in_fd), out_fd_(out_fd), max_message_bytes_(max_message_bytes) {}

StdioTransport::~StdioTransport() {
  if (wake_[1] >= 0) {
    const char c = 'x';
    (void)!::write(wake_[1], &c, 1);
  }
  if (reader_.joinable()) reader_.join();
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
}

Status StdioTransport::start(std::function<void()> on_closed) {
  on_closed_ = std::move(on_closed);
  if (::pipe2(wake_, O_CLOEXEC) != 0) return make_error("mcp.stdio", std::string("pipe: ") + std::strerror(errno));
  session_ = engine_.open_session("stdio", "stdio", "");
  reader_ = std::thread([this] { read_loop(); });
  return Ok{};
}

void StdioTransport::read_loop() {
  std::string pending;
  bool discarding = false;  // inside a line longer than the limit
  char buf[1 << 16];
  for (;;) {
    pollfd fds[2] = {{in_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents) return;  // the transport is going away
    const ssize_t n = ::read(in_fd_, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    size_t from = 0;
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] != '\n') continue;
      if (!discarding) {
        pending.append(buf + from, static_cast<size_t>(i) - from);
        asio::post(io_, [this, line = std::move(pending)]() mutable { on_line(std::move(line)); });
      }
      pending.clear();
      discarding = false;
      from = static_cast<size_t>(i) + 1;
    }
    if (!discarding) pending.append(buf + from, static_cast<size_t>(n) - from);
    if (!discarding && pending.size() > max_message_bytes_) {
      // Answered once, as a parse error; the rest of the line is dropped.
      discarding = true;
      pending.clear();
      asio::post(io_, [this] {
        write(jsonrpc::error(nullptr, jsonrpc::kParseError,
                             "the message is longer than " + std::to_string(max_message_bytes_) + " bytes"));
      });
    }
  }
  if (!pending.empty() && !discarding)
    asio::post(io_, [this, line = std::move(pending)]() mutable { on_line(std::move(line)); });
  asio::post(io_, [this] {
    if (closed_) return;
    closed_ = true;
    if (on_closed_) on_closed_();
  });
}

void StdioTransport::on_line(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  if (session_->closing) return;
  asio::co_spawn(io_, handle_line(engine_, session_, jsonrpc::parse(line), [this](const json& m) { write(m); }),
                 asio::detached);
}

void StdioTransport::write(const json& message) {
  if (output_broken_) return;
  std::string line = jsonrpc::serialize(message);
  line += '\n';
  size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(out_fd_, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // The client is gone: the session ends as if it had closed its side.
      output_broken_ = true;
      if (!closed_) {
        closed_ = true;
        if (on_closed_) asio::post(io_, on_closed_);
      }
      return;
    }
    off += static_cast<size_t>(n);
  }
}

}  // namespace kgb::mcp
