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

std::string_view trimmed(std::string_view pattern) {
  while (!pattern.empty() && pattern.front() == ' ') pattern.remove_prefix(1);
  while (!pattern.empty() && pattern.back() == ' ') pattern.remove_suffix(1);
  if (pattern.starts_with("::")) pattern.remove_prefix(2);
  return pattern;
}

bool has_glob(std::string_view pattern) { return pattern.find_first_of("*?") != std::string_view::npos; }

}  // namespace

NamePatterns::NamePatterns(std::initializer_list<std::string_view> patterns) {
  for (auto p : patterns) add(p);
}

void NamePatterns::add(std::string_view pattern) {
  const bool exception = !pattern.empty() && pattern.front() == '!';
  if (exception) pattern.remove_prefix(1);
  pattern = trimmed(pattern);
  const bool scope_only = pattern.ends_with("::");
  if (scope_only) pattern.remove_suffix(2);
  if (pattern.empty()) return;
  (exception ? excluded_ : included_).push_back({std::string(pattern), scope_only});
}

void NamePatterns::add_all(const std::vector<std::string>& patterns) {
  for (const auto& p : patterns) add(p);
}

bool NamePatterns::matches(const Pattern& pattern, std::string_view name) {
  const std::string& text = pattern.text;
  if (has_glob(text)) return glob_match(text, name) || (pattern.scope_only && glob_match(text + "::*", name));
  if (name.size() < text.size() || name.compare(0, text.size(), text) != 0) return false;
  if (name.size() == text.size()) return !pattern.scope_only;
  return name.substr(text.size()).starts_with("::");
}

std::string NamePatterns::match(std::string_view qualified_name) const {
  for (const auto& e : excluded_)
    if (matches(e, qualified_name)) return {};
  for (const auto& p : included_)
    if (matches(p, qualified_name)) return p.text;
  return {};
}

std::vector<std::string> NamePatterns::plain_names() const {
  std::vector<std::string> out;
  for (const auto& p : included_)
    if (!p.scope_only && !has_glob(p.text) && p.text.find("::") == std::string::npos) out.push_back(p.text);
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
