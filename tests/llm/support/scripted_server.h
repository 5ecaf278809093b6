// Loopback servers for the LLM client tests, written with blocking sockets and
// one thread per connection so their behaviour is obvious from the script:
// - ScriptedServer answers each request with a Reply chosen by a handler
//   (status, headers, body, chunks with pauses, cut streams, raw bytes, hangs),
//   over plain TCP or TLS, and records what it received and when;
// - ScriptedProxy is an HTTP proxy (CONNECT tunnels and absolute-form
//   requests), spoken to over plain TCP or TLS, that records what it was
//   asked to do.
// Everything listens on 127.0.0.1 only.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kgb::test {

using Clock = std::chrono::steady_clock;

struct RecordedRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  Clock::time_point arrived;
  int connection = 0;  // which accepted connection carried it (0-based)
  std::string header(const std::string& name) const;
};

struct Reply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;                      // sent with Content-Length unless `chunks` is used
  std::vector<std::string> chunks;       // sent with chunked transfer encoding
  std::chrono::milliseconds delay{0};    // before the status line
  std::chrono::milliseconds chunk_pause{0};
  bool cut = false;        // close the connection before the body is complete
  bool close = false;      // close the connection after the reply (announced)
  bool drop = false;       // close it after the reply without announcing it
  bool hang = false;       // never answer; the connection stays open until stop
  std::optional<std::string> raw;  // bytes sent verbatim instead of a response, then close

  static Reply json(int status, std::string body);
  static Reply sse(std::vector<std::string> events, std::chrono::milliseconds pause = {});
};

// Formats `data` lines as one SSE event (with an optional event name).
std::string sse_event(const std::string& data, const std::string& event = "");

struct TlsFiles {
  std::string certificate_chain;  // PEM
  std::string private_key;        // PEM
};

class ScriptedServer {
 public:
  using Handler = std::function<Reply(const RecordedRequest& request, int index)>;

  explicit ScriptedServer(Handler handler, std::optional<TlsFiles> tls = std::nullopt);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  uint16_t port() const { return port_; }
  std::string base_url(const std::string& host = "127.0.0.1") const;  // scheme://host:port/v1
  std::vector<RecordedRequest> requests() const;
  int connections() const { return connections_.load(); }
  int max_concurrent() const { return max_concurrent_.load(); }  // requests being answered at once
  std::string server_name_seen() const;  // TLS SNI of the last handshake
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
  std::atomic<int> connections_{0};
  std::atomic<int> max_concurrent_{0};
};

class ScriptedProxy {
 public:
  struct Options {
    std::string required_authorization;  // e.g. "Basic dXNlcjpwYXNz"; empty: none required
    bool refuse_all = false;             // answer 403 to everything
    std::optional<TlsFiles> tls;         // set: an https:// proxy (clients speak TLS to it)
  };
  explicit ScriptedProxy(Options options);
  ScriptedProxy() : ScriptedProxy(Options{}) {}
  ~ScriptedProxy();

  uint16_t port() const { return port_; }
  std::string url(const std::string& host = "127.0.0.1") const;  // http(s)://host:port
  std::string server_name_seen() const;  // TLS SNI of the last handshake (https:// proxy)
  std::vector<std::string> connect_targets() const;   // CONNECT host:port seen
  std::vector<std::string> absolute_targets() const;  // absolute-form request targets seen
  std::vector<std::string> authorizations() const;    // Proxy-Authorization values seen
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
};

// A CA and a leaf certificate signed by it, created with OpenSSL at test time
// and written into `directory`.
struct TestPki {
  std::string ca_file;     // the CA certificate (PEM): trust this
  TlsFiles server;         // leaf certificate + key for the server
};
TestPki make_test_pki(const std::string& directory, const std::vector<std::string>& dns_names,
                      const std::vector<std::string>& ip_addresses);

std::string temp_directory(const std::string& prefix);

}  // namespace kgb::test
