// TLS verification with a CA made at test time, SNI, host-name checks, and
// proxies (CONNECT tunnels and absolute-form requests) on loopback.
#include <doctest/doctest.h>

#include <filesystem>

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
  ScriptedProxy proxy(ScriptedProxy::Options{"Basic dXNlcjpwQHNz", false});  // user:p@ss

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

  ScriptedProxy refusing(ScriptedProxy::Options{"", true});
  settings = {};
  settings.http_proxy = *Url::parse(refusing.url());
  config.http.proxy = settings;
  ChatOutcome out = call(config);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->http_status == 403);
}

TEST_CASE("proxy: an https:// proxy URL is reported as unsupported") {
  ProviderConfig config = config_for("https://127.0.0.1:9/v1");
  ProxySettings settings;
  settings.https_proxy = *Url::parse("https://127.0.0.1:8");
  config.http.proxy = settings;
  ChatOutcome out = call(config);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error->kind == ErrorKind::Config);
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
