#include "patterns.h"

namespace kgb::lint::detail {

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matcher with one backtrack point: linear in practice, no recursion.
  size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

std::string normalise(std::string_view pattern) {
  while (!pattern.empty() && pattern.front() == ' ') pattern.remove_prefix(1);
  while (!pattern.empty() && pattern.back() == ' ') pattern.remove_suffix(1);
  if (pattern.starts_with("::")) pattern.remove_prefix(2);
  if (pattern.ends_with("::")) pattern.remove_suffix(2);
  return std::string(pattern);
}

bool has_glob(std::string_view pattern) { return pattern.find_first_of("*?") != std::string_view::npos; }

}  // namespace

NamePatterns::NamePatterns(std::initializer_list<std::string_view> patterns) {
  for (auto p : patterns) add(p);
}

void NamePatterns::add(std::string_view pattern) {
  const bool exception = !pattern.empty() && pattern.front() == '!';
  if (exception) pattern.remove_prefix(1);
  std::string normalised = normalise(pattern);
  if (normalised.empty()) return;
  (exception ? excluded_ : included_).push_back(std::move(normalised));
}

void NamePatterns::add_all(const std::vector<std::string>& patterns) {
  for (const auto& p : patterns) add(p);
}

bool NamePatterns::matches(const std::string& pattern, std::string_view name) {
  if (has_glob(pattern)) return glob_match(pattern, name);
  if (name.size() < pattern.size() || name.compare(0, pattern.size(), pattern) != 0) return false;
  return name.size() == pattern.size() || name.substr(pattern.size()).starts_with("::");
}

std::string NamePatterns::match(std::string_view qualified_name) const {
  for (const auto& e : excluded_)
    if (matches(e, qualified_name)) return {};
  for (const auto& p : included_)
    if (matches(p, qualified_name)) return p;
  return {};
}

std::vector<std::string> NamePatterns::plain_names() const {
  std::vector<std::string> out;
  for (const auto& p : included_)
    if (!has_glob(p) && p.find("::") == std::string::npos) out.push_back(p);
  return out;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

}  // namespace kgb::lint::detail
