#include "kgb/llm/url.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace kgb::llm {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

uint16_t default_port(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

// Parses an IPv4 or IPv6 literal into 16 bytes (IPv4 mapped into the low 4).
std::optional<std::pair<std::array<unsigned char, 16>, int>> parse_ip(const std::string& text) {
  std::array<unsigned char, 16> bytes{};
  if (inet_pton(AF_INET, text.c_str(), bytes.data()) == 1) return std::make_pair(bytes, 32);
  if (inet_pton(AF_INET6, text.c_str(), bytes.data()) == 1) return std::make_pair(bytes, 128);
  return std::nullopt;
}

bool ip_in_cidr(const std::string& host, const std::string& network, int prefix) {
  auto h = parse_ip(host);
  auto n = parse_ip(network);
  if (!h || !n || h->second != n->second || prefix < 0 || prefix > h->second) return false;
  for (int bit = 0; bit < prefix; ++bit) {
    const int byte = bit / 8, shift = 7 - bit % 8;
    if (((h->first[byte] >> shift) & 1) != ((n->first[byte] >> shift) & 1)) return false;
  }
  return true;
}

const char* env_first(const char* a, const char* b) {
  if (const char* v = std::getenv(a); v && *v) return v;
  if (const char* v = std::getenv(b); v && *v) return v;
  return nullptr;
}

}  // namespace

kgb::Result<Url> Url::parse(std::string_view text) {
  text = trim(text);
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos)
    return make_error("url.invalid", "URL has no scheme (expected http:// or https://)");
  Url url;
  url.scheme = lower(text.substr(0, scheme_end));
  if (url.scheme != "http" && url.scheme != "https")
    return make_error("url.scheme", "URL scheme '" + url.scheme + "' is not http or https");
  std::string_view rest = text.substr(scheme_end + 3);
  if (auto hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  const auto authority_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view path = authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    url.userinfo = std::string(authority.substr(0, at));
    authority = authority.substr(at + 1);
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return make_error("url.invalid", "URL has an unterminated IPv6 literal");
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return make_error("url.invalid", "URL has garbage after the IPv6 literal");
      port_text = after.substr(1);
    }
  } else {
    const auto colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  url.host = lower(url.host);
  if (url.host.empty()) return make_error("url.invalid", "URL has no host");
  if (!port_text.empty()) {
    unsigned long port = 0;
    for (char c : port_text) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return make_error("url.invalid", "URL port is not a number");
      port = port * 10 + static_cast<unsigned long>(c - '0');
      if (port > 65535) return make_error("url.invalid", "URL port is out of range");
    }
    if (port == 0) return make_error("url.invalid", "URL port is 0");
    url.port = static_cast<uint16_t>(port);
  } else {
    url.port = default_port(url.scheme);
  }
  url.target = path.empty() ? std::string("/") : std::string(path);
  if (url.target.front() == '?') url.target.insert(url.target.begin(), '/');
  return url;
}

bool Url::host_is_ip_literal() const { return parse_ip(host).has_value(); }

std::string Url::host_port() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string Url::host_header() const {
  if (port == default_port(scheme)) return host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return host_port();
}

std::string Url::origin() const { return scheme + "://" + host_header(); }

std::string Url::to_string() const { return origin() + target; }

Url Url::with_path(std::string_view suffix) const {
  Url out = *this;
  std::string query;
  if (auto q = out.target.find('?'); q != std::string::npos) {
    query = out.target.substr(q);
    out.target.resize(q);
  }
  while (!out.target.empty() && out.target.back() == '/') out.target.pop_back();
  if (suffix.empty() || suffix.front() != '/') out.target += '/';
  out.target += suffix;
  out.target += query;
  return out;
}

ProxySettings ProxySettings::from_environment(std::vector<kgb::Error>* errors) {
  ProxySettings settings;
  auto read = [&](const char* lower_name, const char* upper_name, std::optional<Url>& slot) {
    const char* value = env_first(lower_name, upper_name);
    if (!value) return;
    std::string text = value;
    if (text.find("://") == std::string::npos) text = "http://" + text;  // "host:port" is common
    auto parsed = Url::parse(text);
    if (parsed) {
      slot = std::move(parsed.value());
    } else if (errors) {
      // The value may hold a password: name the variable, not the value.
      errors->push_back(make_error("proxy.invalid", std::string(upper_name) + " is not a valid URL: " +
                                                        parsed.error().message));
    }
  };
  read("https_proxy", "HTTPS_PROXY", settings.https_proxy);
  read("http_proxy", "HTTP_PROXY", settings.http_proxy);
  if (const char* value = env_first("no_proxy", "NO_PROXY")) {
    std::string_view list = value;
    while (!list.empty()) {
      const auto comma = list.find(',');
      auto item = trim(list.substr(0, comma));
      if (!item.empty()) settings.no_proxy.push_back(lower(item));
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  return settings;
}

bool ProxySettings::bypassed(const Url& target) const {
  for (const std::string& raw : no_proxy) {
    if (raw == "*") return true;
    std::string entry = raw;
    std::optional<uint16_t> port;
    // "[::1]:8080", "host:8080"; a bare IPv6 literal has several colons and no port.
    if (!entry.empty() && entry.front() == '[') {
      const auto close = entry.find(']');
      if (close == std::string::npos) continue;
      if (close + 1 < entry.size() && entry[close + 1] == ':') port = static_cast<uint16_t>(std::atoi(entry.c_str() + close + 2));
      entry = entry.substr(1, close - 1);
    } else if (std::count(entry.begin(), entry.end(), ':') == 1) {
      const auto colon = entry.find(':');
      port = static_cast<uint16_t>(std::atoi(entry.c_str() + colon + 1));
      entry.resize(colon);
    }
    if (port && *port != target.port) continue;
    if (auto slash = entry.find('/'); slash != std::string::npos) {
      if (ip_in_cidr(target.host, entry.substr(0, slash), std::atoi(entry.c_str() + slash + 1))) return true;
      continue;
    }
    if (entry.starts_with("*.")) entry.erase(0, 2);
    else if (entry.starts_with(".")) entry.erase(0, 1);
    if (entry.empty()) continue;
    if (target.host == entry) return true;
    if (target.host.size() > entry.size() && target.host.ends_with(entry) &&
        target.host[target.host.size() - entry.size() - 1] == '.')
      return true;
  }
  return false;
}

const Url* ProxySettings::proxy_for(const Url& target) const {
  const std::optional<Url>& slot = target.https() ? https_proxy : http_proxy;
  if (!slot || bypassed(target)) return nullptr;
  return &*slot;
}

}  // namespace kgb::llm
