#include "scripted_server.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <list>
#include <stdexcept>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace kgb::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string RecordedRequest::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

Reply Reply::json(int status, std::string body) {
  Reply r;
  r.status = status;
  r.headers.push_back({"Content-Type", "application/json"});
  r.body = std::move(body);
  return r;
}

Reply Reply::sse(std::vector<std::string> events, std::chrono::milliseconds pause) {
  Reply r;
  r.headers.push_back({"Content-Type", "text/event-stream"});
  r.chunks = std::move(events);
  r.chunk_pause = pause;
  return r;
}

std::string sse_event(const std::string& data, const std::string& event) {
  std::string out;
  if (!event.empty()) out += "event: " + event + "\n";
  out += "data: " + data + "\n\n";
  return out;
}

namespace {

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 529: return "Overloaded";
    default: return "Status";
  }
}

// A byte stream over a connected socket: plain or TLS, blocking.
struct Channel {
  virtual ~Channel() = default;
  virtual std::size_t read_some(asio::mutable_buffer buffer, boost::system::error_code& ec) = 0;
  virtual void write_all(std::string_view data, boost::system::error_code& ec) = 0;
};

struct PlainChannel : Channel {
  explicit PlainChannel(tcp::socket& s) : socket(s) {}
  std::size_t read_some(asio::mutable_buffer buffer, boost::system::error_code& ec) override {
    return socket.read_some(buffer, ec);
  }
  void write_all(std::string_view data, boost::system::error_code& ec) override {
    asio::write(socket, asio::buffer(data), ec);
  }
  tcp::socket& socket;
};

struct TlsChannel : Channel {
  TlsChannel(tcp::socket& s, asio::ssl::context& ctx) : stream(s, ctx) {}
  std::size_t read_some(asio::mutable_buffer buffer, boost::system::error_code& ec) override {
    return stream.read_some(buffer, ec);
  }
  void write_all(std::string_view data, boost::system::error_code& ec) override {
    asio::write(stream, asio::buffer(data), ec);
  }
  asio::ssl::stream<tcp::socket&> stream;
};

// Adapts a Channel to Beast's SyncReadStream for http::read.
struct ChannelReader {
  Channel& channel;
  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers, boost::system::error_code& ec) {
    for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it)
      if (it->size() > 0) return channel.read_some(*it, ec);
    ec = {};
    return 0;
  }
  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers) {
    boost::system::error_code ec;
    auto n = read_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }
};

// Accepts on 127.0.0.1:0 and hands each connection to `serve` on its own thread.
class Listener {
 public:
  using Serve = std::function<void(tcp::socket&, int index)>;

  explicit Listener(Serve serve) : serve_(std::move(serve)), acceptor_(io_) {
    tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(asio::socket_base::max_listen_connections);
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { accept_loop(); });
  }

  ~Listener() { stop(); }

  uint16_t port() const { return port_; }

  void stop() {
    if (stopping_.exchange(true)) return;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    {
      // Wake connections blocked in reads so their threads can end.
      std::lock_guard lock(mutex_);
      for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    }
    if (thread_.joinable()) thread_.join();
    std::list<std::thread> workers;
    {
      std::lock_guard lock(mutex_);
      workers.swap(workers_);
    }
    for (auto& t : workers) t.join();
  }

  bool stopping() const { return stopping_.load(); }

 private:
  void accept_loop() {
    int index = 0;
    while (!stopping_) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopping_) break;
      std::lock_guard lock(mutex_);
      const int fd = socket.native_handle();
      open_fds_.push_back(fd);
      workers_.emplace_back([this, s = std::move(socket), i = index++, fd]() mutable {
        serve_(s, i);
        // Forget the descriptor before closing it, so stop() never shuts a reused number.
        {
          std::lock_guard inner(mutex_);
          std::erase(open_fds_, fd);
        }
        boost::system::error_code ignored;
        s.close(ignored);
      });
    }
  }

  Serve serve_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<int> open_fds_;
  std::list<std::thread> workers_;
};

}  // namespace

struct ScriptedServer::Impl {
  Handler handler;
  std::optional<asio::ssl::context> tls;
  mutable std::mutex mutex;
  std::condition_variable stopped_cv;
  std::vector<RecordedRequest> requests;
  std::string sni;
  int in_flight = 0;
  std::unique_ptr<Listener> listener;
  bool stopped = false;
};

namespace {

int sni_callback(SSL* ssl, int*, void* arg) {
  auto* impl = static_cast<ScriptedServer::Impl*>(arg);
  const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  std::lock_guard lock(impl->mutex);
  impl->sni = name ? name : "";
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

ScriptedServer::ScriptedServer(Handler handler, std::optional<TlsFiles> tls) : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  if (tls) {
    impl_->tls.emplace(asio::ssl::context::tls_server);
    impl_->tls->use_certificate_chain_file(tls->certificate_chain);
    impl_->tls->use_private_key_file(tls->private_key, asio::ssl::context::pem);
    SSL_CTX_set_tlsext_servername_callback(impl_->tls->native_handle(), sni_callback);
    SSL_CTX_set_tlsext_servername_arg(impl_->tls->native_handle(), impl_.get());
  }
  Impl* impl = impl_.get();
  impl_->listener = std::make_unique<Listener>([this, impl](tcp::socket& socket, int index) {
    connections_.fetch_add(1);
    std::unique_ptr<Channel> channel;
    if (impl->tls) {
      auto tls_channel = std::make_unique<TlsChannel>(socket, *impl->tls);
      boost::system::error_code ec;
      tls_channel->stream.handshake(asio::ssl::stream_base::server, ec);
      if (ec) return;  // the client rejected us or went away: that is the test's point
      channel = std::move(tls_channel);
    } else {
      channel = std::make_unique<PlainChannel>(socket);
    }
    beast::flat_buffer buffer;
    ChannelReader reader{*channel};
    for (;;) {
      http::request<http::string_body> req;
      boost::system::error_code ec;
      http::read(reader, buffer, req, ec);
      if (ec) return;
      RecordedRequest rec;
      rec.method = std::string(req.method_string());
      rec.target = std::string(req.target());
      for (const auto& field : req) {
        std::string name(field.name_string());
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        rec.headers[name] = std::string(field.value());
      }
      rec.body = req.body();
      rec.arrived = Clock::now();
      rec.connection = index;
      int request_index;
      {
        std::lock_guard lock(impl->mutex);
        request_index = static_cast<int>(impl->requests.size());
        impl->requests.push_back(rec);
        ++impl->in_flight;
        int current = max_concurrent_.load();
        while (impl->in_flight > current && !max_concurrent_.compare_exchange_weak(current, impl->in_flight)) {}
      }
      Reply reply = impl->handler(rec, request_index);
      struct Done {
        Impl* impl;
        ~Done() {
          std::lock_guard lock(impl->mutex);
          --impl->in_flight;
        }
      } done{impl};
      if (reply.hang) {
        std::unique_lock lock(impl->mutex);
        impl->stopped_cv.wait(lock, [&] { return impl->stopped; });
        return;
      }
      if (reply.delay.count() > 0) std::this_thread::sleep_for(reply.delay);
      if (reply.raw) {
        channel->write_all(*reply.raw, ec);
        return;
      }
      std::string head = "HTTP/1.1 " + std::to_string(reply.status) + " " + reason_phrase(reply.status) + "\r\n";
      for (const auto& [name, value] : reply.headers) head += name + ": " + value + "\r\n";
      const bool chunked = !reply.chunks.empty();
      if (chunked) {
        head += "Transfer-Encoding: chunked\r\n";
      } else {
        head += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
      }
      if (reply.close) head += "Connection: close\r\n";
      head += "\r\n";
      if (!chunked) {
        const std::string body = reply.cut ? reply.body.substr(0, reply.body.size() / 2) : reply.body;
        channel->write_all(head + body, ec);
      } else {
        channel->write_all(head, ec);
        for (std::size_t i = 0; i < reply.chunks.size() && !ec; ++i) {
          if (i > 0 && reply.chunk_pause.count() > 0) std::this_thread::sleep_for(reply.chunk_pause);
          const std::string& data = reply.chunks[i];
          char size[32];
          std::snprintf(size, sizeof size, "%zx\r\n", data.size());
          channel->write_all(std::string(size) + data + "\r\n", ec);
        }
        if (!reply.cut && !ec) channel->write_all("0\r\n\r\n", ec);
      }
      if (ec || reply.cut || reply.close || reply.drop) return;
    }
  });
  port_ = impl_->listener->port();
}

ScriptedServer::~ScriptedServer() { stop(); }

void ScriptedServer::stop() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopped = true;
  }
  impl_->stopped_cv.notify_all();
  impl_->listener->stop();
}

std::string ScriptedServer::base_url(const std::string& host) const {
  return std::string(impl_->tls ? "https" : "http") + "://" + host + ":" + std::to_string(port_) + "/v1";
}

std::vector<RecordedRequest> ScriptedServer::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

std::string ScriptedServer::server_name_seen() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->sni;
}

// ---------------------------------------------------------------- proxy

struct ScriptedProxy::Impl {
  Options options;
  std::optional<asio::ssl::context> tls;
  mutable std::mutex mutex;
  std::vector<std::string> connects, absolutes, authorizations;
  std::string sni;
  std::unique_ptr<Listener> listener;
};

namespace {

// Copies bytes both ways until either side closes.
void pump(tcp::socket& a, tcp::socket& b) {
  std::thread back([&] {
    char buf[16384];
    boost::system::error_code ec;
    for (;;) {
      std::size_t n = b.read_some(asio::buffer(buf), ec);
      if (ec) break;
      asio::write(a, asio::buffer(buf, n), ec);
      if (ec) break;
    }
    ::shutdown(a.native_handle(), SHUT_WR);
  });
  char buf[16384];
  boost::system::error_code ec;
  for (;;) {
    std::size_t n = a.read_some(asio::buffer(buf), ec);
    if (ec) break;
    asio::write(b, asio::buffer(buf, n), ec);
    if (ec) break;
  }
  ::shutdown(b.native_handle(), SHUT_WR);
  back.join();
}

// pump() for a TLS client connection. One SSL object must not be used from
// two threads, so both directions run here on one thread, asynchronously;
// when either side ends, both sockets are shut down.
void pump_tls(asio::io_context& io, asio::ssl::stream<tcp::socket&>& client, tcp::socket& upstream) {
  auto end_both = [&] {
    ::shutdown(client.next_layer().native_handle(), SHUT_RDWR);
    ::shutdown(upstream.native_handle(), SHUT_RDWR);
  };
  auto relay = [&](auto& from, auto& to) -> asio::awaitable<void> {
    constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
    char buf[16384];
    for (;;) {
      auto [ec, n] = co_await from.async_read_some(asio::buffer(buf), use_tuple);
      if (ec) break;
      auto [write_ec, written] = co_await asio::async_write(to, asio::buffer(buf, n), use_tuple);
      if (write_ec) break;
    }
    end_both();
  };
  asio::co_spawn(io, relay(client, upstream), asio::detached);
  asio::co_spawn(io, relay(upstream, client), asio::detached);
  io.run();
}

// Loopback only: the tests never let the proxy reach anything else.
bool parse_loopback_authority(const std::string& authority, uint16_t& port) {
  const auto colon = authority.rfind(':');
  if (colon == std::string::npos) return false;
  const std::string host = authority.substr(0, colon);
  if (host != "127.0.0.1" && host != "localhost") return false;
  port = static_cast<uint16_t>(std::stoi(authority.substr(colon + 1)));
  return true;
}

}  // namespace

ScriptedProxy::ScriptedProxy(Options options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  if (impl_->options.tls) {
    impl_->tls.emplace(asio::ssl::context::tls_server);
    impl_->tls->use_certificate_chain_file(impl_->options.tls->certificate_chain);
    impl_->tls->use_private_key_file(impl_->options.tls->private_key, asio::ssl::context::pem);
  }
  Impl* impl = impl_.get();
  impl_->listener = std::make_unique<Listener>([impl](tcp::socket& accepted, int) {
    // The connection on an io_context of this thread, which the TLS relay runs;
    // a duplicate descriptor, so the listener's stop() still reaches it.
    asio::io_context io;
    boost::system::error_code ec;
    tcp::socket socket(io);
    socket.assign(tcp::v4(), ::dup(accepted.native_handle()), ec);
    if (ec) return;
    std::unique_ptr<Channel> channel;
    TlsChannel* tls_channel = nullptr;
    if (impl->tls) {
      auto owned = std::make_unique<TlsChannel>(socket, *impl->tls);
      owned->stream.handshake(asio::ssl::stream_base::server, ec);
      if (ec) return;  // the client rejected our certificate or went away
      const char* name = SSL_get_servername(owned->stream.native_handle(), TLSEXT_NAMETYPE_host_name);
      {
        std::lock_guard lock(impl->mutex);
        impl->sni = name ? name : "";
      }
      tls_channel = owned.get();
      channel = std::move(owned);
    } else {
      channel = std::make_unique<PlainChannel>(socket);
    }
    ChannelReader reader{*channel};
    beast::flat_buffer buffer;
    http::request<http::string_body> req;
    {
      // CONNECT has no body: parse the header only, the tunnel follows.
      http::request_parser<http::string_body> parser;
      http::read_header(reader, buffer, parser, ec);
      if (ec) return;
      if (parser.get().method() != http::verb::connect) http::read(reader, buffer, parser, ec);
      if (ec) return;
      req = parser.release();
    }
    const std::string auth(req[http::field::proxy_authorization]);
    const std::string target(req.target());
    {
      std::lock_guard lock(impl->mutex);
      impl->authorizations.push_back(auth);
      if (req.method() == http::verb::connect) impl->connects.push_back(target);
      else impl->absolutes.push_back(target);
    }
    auto refuse = [&](int status) {
      std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
                           "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      channel->write_all(answer, ec);
    };
    if (impl->options.refuse_all) return refuse(403);
    if (!impl->options.required_authorization.empty() && auth != impl->options.required_authorization)
      return refuse(407);
    uint16_t port = 0;
    std::string authority = target;
    std::string origin_target = "/";
    if (req.method() != http::verb::connect) {
      // http://host:port/path -> host:port and /path
      const auto scheme_end = target.find("://");
      if (scheme_end == std::string::npos) return refuse(400);
      const auto path_start = target.find('/', scheme_end + 3);
      authority = target.substr(scheme_end + 3, path_start - scheme_end - 3);
      origin_target = path_start == std::string::npos ? "/" : target.substr(path_start);
    }
    if (!parse_loopback_authority(authority, port)) return refuse(403);
    tcp::socket upstream(socket.get_executor());
    upstream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
    if (ec) return refuse(502);
    if (req.method() == http::verb::connect) {
      channel->write_all("HTTP/1.1 200 Connection Established\r\n\r\n", ec);
    } else {
      req.target(origin_target);
      req.erase(http::field::proxy_authorization);
      http::write(upstream, req, ec);
    }
    if (ec) return;
    if (buffer.size() > 0) asio::write(upstream, buffer.data(), ec);
    if (tls_channel) pump_tls(io, tls_channel->stream, upstream);
    else pump(socket, upstream);
  });
  port_ = impl_->listener->port();
}

ScriptedProxy::~ScriptedProxy() { stop(); }
void ScriptedProxy::stop() { impl_->listener->stop(); }

std::string ScriptedProxy::url(const std::string& host) const {
  return (impl_->tls ? "https://" : "http://") + host + ":" + std::to_string(port_);
}

std::string ScriptedProxy::server_name_seen() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->sni;
}

std::vector<std::string> ScriptedProxy::connect_targets() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->connects;
}
std::vector<std::string> ScriptedProxy::absolute_targets() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->absolutes;
}
std::vector<std::string> ScriptedProxy::authorizations() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->authorizations;
}

std::string temp_directory(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

}  // namespace kgb::test
