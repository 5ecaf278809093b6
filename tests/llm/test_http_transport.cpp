// TLS verification with a CA made at test time, SNI, host-name checks, and
// proxies (CONNECT tunnels and absolute-form requests; http:// and https://
// proxies) on loopback.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "kgb/llm/client.h"
#include "run_async.h"
#include "scripted_server.h"

using namespace kgb::llm;
using namespace std::chrono_literals;
using kgb::test::RecordedRequest;
using kgb::test::Reply;
using kgb::test::ScriptedProxy;
using kgb::test::ScriptedServer;
using kgb::test::sse_event;
using json = nlohmann::json;

namespace {

std::string ok_body() {
  return json{{"choices", {{{"index", 0}, {"finish_reason", "stop"}, {"message", {{"content", "secure"}}}}}},
              {"usage", {{"prompt_tokens", 1}, {"completion_tokens", 1}}}}
      .dump();
}

ProviderConfig config_for(const std::string& base_url) {
  ProviderConfig c;
  c.name = "tls";
  c.base_url = base_url;
  c.api_key_required = false;
  c.http.proxy = ProxySettings::none();
  c.retry.initial_backoff = 10ms;
  c.call_timeout = 20s;
  return c;
}

ChatRequest request() {
  ChatRequest r;
  r.model = "m";
  r.messages.push_back(Message::user("hi"));
  return r;
}

ChatOutcome call(const ProviderConfig& config) {
  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  return kgb::test::run_one(io, client.chat(request()));
}

kgb::test::TestPki pki_in(const std::string& dir, std::vector<std::string> dns, std::vector<std::string> ips) {
  std::filesystem::create_directories(dir);
  return kgb::test::make_test_pki(dir, dns, ips);
}

}  // namespace

TEST_CASE("tls: a certificate from an unknown CA is rejected by default, accepted with the CA file") {
  const std::string dir = kgb::test::temp_directory("kgb-tls");
  auto pki = pki_in(dir + "/a", {"localhost"}, {"127.0.0.1"});
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); }, pki.server);

  ChatOutcome rejected = call(config_for(server.base_url("localhost")));
  REQUIRE_FALSE(rejected.ok());
  CHECK(rejected.error->kind == ErrorKind::Tls);
  CHECK(rejected.error->message.find("verification failed") != std::string::npos);
  CHECK_FALSE(rejected.error->retryable);
  CHECK(rejected.stats.attempts == 1);
  CHECK(server.requests().empty());

  ProviderConfig trusted = config_for(server.base_url("localhost"));
  trusted.http.tls.ca_file = pki.ca_file;
  ChatOutcome accepted = call(trusted);
  REQUIRE(accepted.ok());
  CHECK(accepted.response->text == "secure");
  CHECK(server.server_name_seen() == "localhost");  // SNI sent

  // By IP address: verified against the IP SAN, and no SNI (names only).
  ProviderConfig by_ip = config_for(server.base_url("127.0.0.1"));
  by_ip.http.tls.ca_file = pki.ca_file;
  REQUIRE(call(by_ip).ok());
  CHECK(server.server_name_seen().empty());
  std::filesystem::remove_all(dir);
}

TEST_CASE("tls: host-name mismatch is rejected even with the CA trusted") {
  const std::string dir = kgb::test::temp_directory("kgb-tls");
  auto pki = pki_in(dir + "/b", {"api.example.test"}, {});
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); }, pki.server);
  for (const char* host : {"localhost", "127.0.0.1"}) {
    CAPTURE(host);
    ProviderConfig config = config_for(server.base_url(host));
    config.http.tls.ca_file = pki.ca_file;
    ChatOutcome out = call(config);
    REQUIRE_FALSE(out.ok());
    CHECK(out.error->kind == ErrorKind::Tls);
    CHECK(out.error->message.find("mismatch") != std::string::npos);
  }
  CHECK(server.requests().empty());
  std::filesystem::remove_all(dir);
}

TEST_CASE("tls: an unreadable CA file is a configuration error") {
  ProviderConfig config = config_for("https://127.0.0.1:9/v1");
  config.http.tls.ca_file = "/nonexistent/ca.pem";
  ChatOutcome out = call(config);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->kind == ErrorKind::Config);
}

TEST_CASE("tls: plain HTTP spoken to a TLS port fails cleanly") {
  const std::string dir = kgb::test::temp_directory("kgb-tls");
  auto pki = pki_in(dir + "/c", {"localhost"}, {"127.0.0.1"});
  ScriptedServer tls_server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); }, pki.server);
  ProviderConfig config = config_for("http://127.0.0.1:" + std::to_string(tls_server.port()) + "/v1");
  config.retry.max_retries = 0;
  config.http.timeouts.response_headers = 2s;
  ChatOutcome out = call(config);
  CHECK_FALSE(out.ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("proxy: HTTPS through a CONNECT tunnel with proxy credentials") {
  const std::string dir = kgb::test::temp_directory("kgb-tls");
  auto pki = pki_in(dir + "/d", {"localhost"}, {"127.0.0.1"});
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); }, pki.server);
  ScriptedProxy proxy(ScriptedProxy::Options{"Basic dXNlcjpwQHNz", false, std::nullopt});  // user:p@ss

  ProviderConfig config = config_for(server.base_url("localhost"));
  config.http.tls.ca_file = pki.ca_file;
  ProxySettings settings;
  settings.https_proxy = *Url::parse("http://user:p%40ss@127.0.0.1:" + std::to_string(proxy.port()));
  config.http.proxy = settings;
  ChatOutcome out = call(config);
  REQUIRE(out.ok());
  CHECK(out.response->text == "secure");
  REQUIRE(proxy.connect_targets().size() == 1);
  CHECK(proxy.connect_targets()[0] == "localhost:" + std::to_string(server.port()));
  CHECK(server.server_name_seen() == "localhost");  // TLS ran end to end through the tunnel
  CHECK(server.requests()[0].target == "/v1/chat/completions");

  // Wrong credentials: the proxy answers 407, which is final.
  settings.https_proxy = *Url::parse("http://user:wrong@127.0.0.1:" + std::to_string(proxy.port()));
  config.http.proxy = settings;
  ChatOutcome refused = call(config);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error->kind == ErrorKind::Proxy);
  CHECK(refused.error->http_status == 407);
  CHECK(refused.stats.attempts == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("proxy: plain HTTP uses absolute-form requests; NO_PROXY bypasses; from the environment") {
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); });
  ScriptedProxy proxy;
  ProviderConfig config = config_for(server.base_url());
  ProxySettings settings;
  settings.http_proxy = *Url::parse(proxy.url());
  config.http.proxy = settings;
  REQUIRE(call(config).ok());
  REQUIRE(proxy.absolute_targets().size() == 1);
  CHECK(proxy.absolute_targets()[0] == "http://127.0.0.1:" + std::to_string(server.port()) + "/v1/chat/completions");

  settings.no_proxy = {"127.0.0.1"};
  config.http.proxy = settings;
  REQUIRE(call(config).ok());
  CHECK(proxy.absolute_targets().size() == 1);  // bypassed

  setenv("HTTP_PROXY", proxy.url().c_str(), 1);
  unsetenv("http_proxy");
  unsetenv("NO_PROXY");
  unsetenv("no_proxy");
  config.http.proxy.reset();  // read the environment
  REQUIRE(call(config).ok());
  CHECK(proxy.absolute_targets().size() == 2);
  unsetenv("HTTP_PROXY");

  ScriptedProxy refusing(ScriptedProxy::Options{"", true, std::nullopt});
  settings = {};
  settings.http_proxy = *Url::parse(refusing.url());
  config.http.proxy = settings;
  ChatOutcome out = call(config);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->http_status == 403);
}

// An https:// proxy has its own CA; the client trusts both through one CA file.
struct HttpsProxySetup {
  std::string dir = kgb::test::temp_directory("kgb-tls");
  // The proxy's certificate names only "localhost", the origin's only
  // 127.0.0.1: each handshake passes only if verified against its own peer.
  kgb::test::TestPki origin_pki = pki_in(dir + "/origin", {}, {"127.0.0.1"});
  kgb::test::TestPki proxy_pki = pki_in(dir + "/proxy", {"localhost"}, {});
  std::string both_cas = dir + "/both.pem";

  HttpsProxySetup() {
    std::ofstream out(both_cas);
    out << std::ifstream(origin_pki.ca_file).rdbuf() << std::ifstream(proxy_pki.ca_file).rdbuf();
  }
  ~HttpsProxySetup() { std::filesystem::remove_all(dir); }
};

TEST_CASE("proxy: https:// proxy, HTTPS origin: TLS to the proxy, CONNECT, TLS to the origin inside it") {
  HttpsProxySetup setup;
  ScriptedServer server(
      [](const RecordedRequest&, int index) {
        if (index == 0) return Reply::json(200, ok_body());
        return Reply::sse({sse_event(R"({"choices":[{"index":0,"delta":{"content":"stre"}}]})"),
                           sse_event(R"({"choices":[{"index":0,"delta":{"content":"amed"}}]})"),
                           sse_event(R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})"), sse_event("[DONE]")},
                          1ms);
      },
      setup.origin_pki.server);
  ScriptedProxy proxy(ScriptedProxy::Options{"Basic dXNlcjpwQHNz", false, setup.proxy_pki.server});  // user:p@ss

  ProviderConfig config = config_for(server.base_url("127.0.0.1"));
  config.http.tls.ca_file = setup.both_cas;
  ProxySettings settings;
  settings.https_proxy = *Url::parse("https://user:p%40ss@localhost:" + std::to_string(proxy.port()));
  config.http.proxy = settings;

  boost::asio::io_context io;
  LlmClient client(io.get_executor(), config);
  ChatOutcome out = kgb::test::run_one(io, client.chat(request()));
  REQUIRE(out.ok());
  CHECK(out.response->text == "secure");
  CHECK(proxy.server_name_seen() == "localhost");  // SNI to the proxy: its name
  REQUIRE(proxy.connect_targets().size() == 1);
  CHECK(proxy.connect_targets()[0] == "127.0.0.1:" + std::to_string(server.port()));
  CHECK(proxy.authorizations()[0] == "Basic dXNlcjpwQHNz");
  CHECK(server.server_name_seen().empty());  // the origin is an IP literal: no SNI
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].target == "/v1/chat/completions");
  CHECK(server.requests()[0].header("proxy-authorization").empty());  // inside the tunnel, not sent

  // A streamed answer on the pooled connection: the body reader over two TLS layers.
  ChatRequest streamed = request();
  streamed.stream = true;
  ChatOutcome second = kgb::test::run_one(io, client.chat(streamed));
  REQUIRE(second.ok());
  CHECK(second.response->text == "streamed");
  CHECK(proxy.connect_targets().size() == 1);
  CHECK(server.connections() == 1);
}

TEST_CASE("proxy: https:// proxy, HTTP origin: absolute-form requests over TLS to the proxy") {
  HttpsProxySetup setup;
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); });
  ScriptedProxy proxy(ScriptedProxy::Options{"Basic dXNlcjpwQHNz", false, setup.proxy_pki.server});
  ProviderConfig config = config_for(server.base_url());
  config.http.tls.ca_file = setup.proxy_pki.ca_file;
  ProxySettings settings;
  settings.http_proxy = *Url::parse("https://user:p%40ss@localhost:" + std::to_string(proxy.port()));
  config.http.proxy = settings;
  ChatOutcome out = call(config);
  REQUIRE(out.ok());
  CHECK(out.response->text == "secure");
  CHECK(proxy.server_name_seen() == "localhost");
  CHECK(proxy.connect_targets().empty());
  REQUIRE(proxy.absolute_targets().size() == 1);
  CHECK(proxy.absolute_targets()[0] == "http://127.0.0.1:" + std::to_string(server.port()) + "/v1/chat/completions");
  CHECK(proxy.authorizations()[0] == "Basic dXNlcjpwQHNz");

  // Wrong credentials: 407 over the TLS connection, final.
  settings.http_proxy = *Url::parse("https://user:wrong@localhost:" + std::to_string(proxy.port()));
  config.http.proxy = settings;
  ChatOutcome refused = call(config);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error->http_status == 407);
  CHECK(refused.stats.attempts == 1);
}

TEST_CASE("proxy: an untrusted https:// proxy certificate is a TLS error naming the proxy, not retried") {
  HttpsProxySetup setup;
  ScriptedServer server([](const RecordedRequest&, int) { return Reply::json(200, ok_body()); }, setup.origin_pki.server);
  ScriptedProxy proxy(ScriptedProxy::Options{"", false, setup.proxy_pki.server});
  ProviderConfig config = config_for(server.base_url("127.0.0.1"));
  config.http.tls.ca_file = setup.origin_pki.ca_file;  // trusts the origin only
  ProxySettings settings;
  settings.https_proxy = *Url::parse(proxy.url("localhost"));
  config.http.proxy = settings;
  ChatOutcome out = call(config);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->kind == ErrorKind::Tls);
  CHECK(out.error->message.find("verification failed for proxy localhost:" + std::to_string(proxy.port())) !=
        std::string::npos);
  CHECK(out.stats.attempts == 1);
  CHECK(proxy.connect_targets().empty());
  CHECK(server.connections() == 0);

  // Trusted CA but the wrong name: the proxy is verified against its own host name.
  config.http.tls.ca_file = setup.both_cas;
  settings.https_proxy = *Url::parse(proxy.url("127.0.0.1"));
  config.http.proxy = settings;
  ChatOutcome mismatch = call(config);
  REQUIRE_FALSE(mismatch.ok());
  CHECK(mismatch.error->kind == ErrorKind::Tls);
  CHECK(mismatch.error->message.find("proxy 127.0.0.1") != std::string::npos);
  CHECK(mismatch.error->message.find("mismatch") != std::string::npos);
}

TEST_CASE("transport: connection refused and unresolvable hosts") {
  // Bind and close a socket to find a free port nobody listens on.
  uint16_t port;
  {
    ScriptedServer probe([](const RecordedRequest&, int) { return Reply::json(200, "{}"); });
    port = probe.port();
  }
  ProviderConfig config = config_for("http://127.0.0.1:" + std::to_string(port) + "/v1");
  config.retry.max_retries = 1;
  ChatOutcome refused = call(config);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error->kind == ErrorKind::Network);
  CHECK(refused.stats.attempts == 2);

  // No network here: the resolver answers "not found" or "try again" (or
  // times out); either way a typed failure within the resolve timeout.
  ProviderConfig nowhere = config_for("http://no-such-host.invalid/v1");
  nowhere.retry.max_retries = 0;
  nowhere.http.timeouts.resolve = 2s;
  ChatOutcome unresolved = call(nowhere);
  REQUIRE_FALSE(unresolved.ok());
  CHECK((unresolved.error->kind == ErrorKind::Network || unresolved.error->kind == ErrorKind::Timeout));
  CHECK(unresolved.error->message.find("no-such-host.invalid") != std::string::npos);
}
