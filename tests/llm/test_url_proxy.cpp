#include <doctest/doctest.h>

#include <cstdlib>

#include "kgb/llm/url.h"

using kgb::llm::ProxySettings;
using kgb::llm::Url;

TEST_CASE("url: parse forms") {
  auto u = Url::parse("https://api.openai.com/v1");
  REQUIRE(u);
  CHECK(u->scheme == "https");
  CHECK(u->host == "api.openai.com");
  CHECK(u->port == 443);
  CHECK(u->target == "/v1");
  CHECK(u->host_header() == "api.openai.com");
  CHECK(u->with_path("/chat/completions").target == "/v1/chat/completions");
  CHECK(u->with_path("messages").target == "/v1/messages");

  auto v6 = Url::parse("http://[::1]:8080");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK(v6->port == 8080);
  CHECK(v6->target == "/");
  CHECK(v6->host_port() == "[::1]:8080");
  CHECK(v6->host_is_ip_literal());

  auto proxy = Url::parse("http://user:p%40ss@proxy.local:3128");
  REQUIRE(proxy);
  CHECK(proxy->userinfo == "user:p%40ss");
  CHECK(proxy->to_string() == "http://proxy.local:3128/");  // never prints the password

  auto q = Url::parse("HTTP://Example.COM:80/a?b=1#frag");
  REQUIRE(q);
  CHECK(q->host == "example.com");
  CHECK(q->host_header() == "example.com");
  CHECK(q->target == "/a?b=1");
  CHECK(q->with_path("/c").target == "/a/c?b=1");

  CHECK_FALSE(Url::parse("ftp://x"));
  CHECK_FALSE(Url::parse("no-scheme"));
  CHECK_FALSE(Url::parse("http://host:99999/"));
  CHECK_FALSE(Url::parse("http://:80/"));
}

TEST_CASE("proxy: environment variables and NO_PROXY rules") {
  setenv("HTTPS_PROXY", "http://proxy.example:3128", 1);
  setenv("HTTP_PROXY", "proxy2.example:8080", 1);  // no scheme: http assumed
  setenv("NO_PROXY", "localhost, .internal.example,10.0.0.0/8, 127.0.0.1, [::1], api.local:8443", 1);
  unsetenv("https_proxy");
  unsetenv("http_proxy");
  unsetenv("no_proxy");
  std::vector<kgb::Error> errors;
  auto settings = ProxySettings::from_environment(&errors);
  CHECK(errors.empty());
  REQUIRE(settings.https_proxy);
  REQUIRE(settings.http_proxy);
  CHECK(settings.http_proxy->host == "proxy2.example");

  auto proxied = [&](const char* url) { return settings.proxy_for(*Url::parse(url)) != nullptr; };
  CHECK(proxied("https://api.openai.com/v1"));
  CHECK(settings.proxy_for(*Url::parse("https://api.openai.com"))->host == "proxy.example");
  CHECK(settings.proxy_for(*Url::parse("http://example.com"))->host == "proxy2.example");
  CHECK_FALSE(proxied("http://localhost:8000"));
  CHECK_FALSE(proxied("https://a.internal.example"));
  CHECK_FALSE(proxied("https://internal.example"));
  CHECK(proxied("https://notinternal.example"));
  CHECK_FALSE(proxied("http://10.1.2.3:8000"));
  CHECK(proxied("http://11.1.2.3:8000"));
  CHECK_FALSE(proxied("http://127.0.0.1:9"));
  CHECK_FALSE(proxied("http://[::1]:9"));
  CHECK_FALSE(proxied("https://api.local:8443"));
  CHECK(proxied("https://api.local:443"));

  setenv("no_proxy", "*", 1);  // lower case wins, as in curl
  auto all_bypassed = ProxySettings::from_environment();
  CHECK(all_bypassed.proxy_for(*Url::parse("https://api.openai.com")) == nullptr);

  setenv("HTTPS_PROXY", "http://bad host:x", 1);
  unsetenv("no_proxy");
  errors.clear();
  auto broken = ProxySettings::from_environment(&errors);
  CHECK(errors.size() == 1);
  CHECK_FALSE(broken.https_proxy);
  unsetenv("HTTPS_PROXY");
  unsetenv("HTTP_PROXY");
  unsetenv("NO_PROXY");
}
