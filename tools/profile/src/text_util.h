// Small text helpers shared by the profile tool's parsers and runs.
#pragma once

#include <string>
#include <string_view>

namespace kgb::profile {

inline std::string trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  const size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

// "/tmp/kgb-profile-x/candidate.cpp" -> "candidate.cpp"
inline std::string base_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

inline std::string cap(const std::string& s, size_t limit = 64 * 1024) {
  if (s.size() <= limit) return s;
  return s.substr(0, limit) + "\n[... " + std::to_string(s.size() - limit) + " more bytes cut]";
}

}  // namespace kgb::profile
