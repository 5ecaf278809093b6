// Name patterns of the name-based rules and allowlists (Clang-free, so they can
// be unit-tested and shared with the symbol check).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kgb::lint::detail {

// '*' matches any run of characters ('/' and "::" included), '?' one character.
bool glob_match(std::string_view pattern, std::string_view text);

// A set of patterns over fully qualified names (see lint.h, "Banned API
// patterns"). A pattern starting with '!' is an exception: a name it matches
// is never matched by the set.
class NamePatterns {
 public:
  NamePatterns() = default;
  NamePatterns(std::initializer_list<std::string_view> patterns);

  void add(std::string_view pattern);
  void add_all(const std::vector<std::string>& patterns);
  bool empty() const { return included_.empty(); }

  // The (normalised) pattern that matches `qualified_name`, or empty.
  std::string match(std::string_view qualified_name) const;
  // Patterns without glob characters or "::": plain C names whose macro
  // aliases (cublasSgemm -> cublasSgemm_v2) the rules resolve.
  std::vector<std::string> plain_names() const;

 private:
  struct Pattern {
    std::string text;     // normalised: no leading or trailing "::"
    bool scope_only;      // written as "ns::": matches members of ns, never a name "ns" itself
  };
  static bool matches(const Pattern& pattern, std::string_view name);
  std::vector<Pattern> included_;
  std::vector<Pattern> excluded_;
};

// Splits "a, b ,c" into {"a","b","c"}.
std::vector<std::string> split_list(std::string_view text);

}  // namespace kgb::lint::detail
