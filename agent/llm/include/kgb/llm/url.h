// URLs of provider endpoints and proxies, and the proxy choice for a target
// (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, lower-case names first as curl does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kgb/result.h"

namespace kgb::llm {

struct Url {
  std::string scheme;    // "http" or "https"
  std::string userinfo;  // "user:password" of a proxy URL; never printed
  std::string host;      // IPv6 literals without brackets
  uint16_t port = 0;     // explicit or the scheme's default
  std::string target;    // path and query, always starting with '/'

  static kgb::Result<Url> parse(std::string_view text);

  bool https() const { return scheme == "https"; }
  bool host_is_ip_literal() const;
  std::string host_port() const;    // "api.example.com:443", "[::1]:8080"
  std::string host_header() const;  // host_port() without the scheme's default port
  std::string origin() const;       // "https://api.example.com" (no userinfo)
  std::string to_string() const;    // origin() + target (no userinfo)
  Url with_path(std::string_view suffix) const;  // appends to target's path
};

// A proxy URL may itself be http:// or https:// (TLS to the proxy first, as
// curl's HTTPS proxies); either way http:// targets go in absolute form and
// https:// targets through a CONNECT tunnel.
struct ProxySettings {
  std::optional<Url> http_proxy;   // for http:// targets (absolute-form requests)
  std::optional<Url> https_proxy;  // for https:// targets (CONNECT tunnel)
  std::vector<std::string> no_proxy;  // host suffixes, IPs, "*"; optional ":port"

  static ProxySettings none() { return {}; }
  // Reads https_proxy/HTTPS_PROXY, http_proxy/HTTP_PROXY, no_proxy/NO_PROXY.
  // Malformed proxy URLs are reported in `errors` and ignored.
  static ProxySettings from_environment(std::vector<kgb::Error>* errors = nullptr);

  // The proxy to use for `target`, or nullptr for a direct connection.
  const Url* proxy_for(const Url& target) const;
  bool bypassed(const Url& target) const;  // NO_PROXY matches
};

}  // namespace kgb::llm
