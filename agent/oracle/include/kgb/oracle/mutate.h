// Deliberately broken variants of a correct solution, so an agent's feedback
// loop can be exercised offline:
// - a compile error: a call to an undeclared function at the top of the entry
//   body, so the diagnostic points at a line inside the entry;
// - a wrong result: the entry is renamed <entry>_oracle_impl and a wrapper with
//   the original signature calls it, then changes the first output tensor
//   (its first element; every element, to one constant, for statistically
//   checked tasks). CPU code writes host memory; CUDA and HIP code launch a
//   small kernel on the given stream. OpenCL has no wrapper.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "kgb/oracle/catalog.h"
#include "kgb/result.h"

namespace kgb::oracle {

struct Mutation {
  std::string source;
  std::string kind;  // "compile_error" or "wrong_result"
  int line = 0;      // compile_error: the 1-based line of the broken statement
};

// Positions in `source` of the entry's definition, comments and string
// literals (raw strings included) skipped.
struct EntryLocation {
  std::size_t name = 0;        // first character of the entry's name
  std::size_t body_open = 0;   // its '{'
  std::size_t body_close = 0;  // its matching '}'
};
std::optional<EntryLocation> find_entry_definition(std::string_view source, std::string_view entry);

// Blanks comments and string/character literals (keeping newlines), so code
// can be searched without being fooled by them.
std::string mask_comments_and_strings(std::string_view source);

Mutation inject_compile_error(std::string_view source, std::string_view entry);
// Fails (code "oracle.no-wrapper") where the backend has no wrapper or the
// entry cannot be found; the caller then falls back to a compile error.
kgb::Result<Mutation> inject_wrong_result(const KernelTarget& target);

}  // namespace kgb::oracle
