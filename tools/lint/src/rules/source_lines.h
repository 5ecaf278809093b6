// Line and column of an offset in raw source text, for the scans that lex the
// candidate's text outside the parser (inactive-code, line-marker).
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace kgb::lint::detail {

class SourceLines {
 public:
  explicit SourceLines(const std::string& text) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(i + 1);
  }
  // 1-based line and column.
  std::pair<int, int> at(size_t offset) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const size_t line = static_cast<size_t>(it - starts_.begin());
    return {static_cast<int>(line), static_cast<int>(offset - starts_[line - 1] + 1)};
  }
  int count() const { return static_cast<int>(starts_.size()); }
  size_t offset(int line) const { return starts_[static_cast<size_t>(line) - 1]; }  // of a 1-based line
  std::string line_text(const std::string& text, int line) const {
    const size_t begin = starts_[line - 1];
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string out = text.substr(begin, std::min<size_t>(end - begin, 200));
    if (!out.empty() && out.back() == '\r') out.pop_back();
    return out;
  }

 private:
  std::vector<size_t> starts_;
};

}  // namespace kgb::lint::detail
