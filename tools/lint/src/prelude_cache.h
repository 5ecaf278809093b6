// Precompiled preludes, cached on disk per toolchain and flags. Parsing the
// CUDA runtime headers costs ~0.8 s per pass; loading them precompiled, ~0.1 s.
// Files are written under a temporary name and renamed, so concurrent linters
// never read a half-written prelude.
#pragma once

#include <filesystem>
#include <string>

#include "invocation.h"

namespace kgb::lint::detail {

// A digest of everything the precompiled prelude depends on.
std::string prelude_key(const ParsePass& pass);

class PreludeCache {
 public:
  explicit PreludeCache(std::filesystem::path dir) : dir_(std::move(dir)) {}
  // The precompiled prelude of a pass, built when missing or when `rebuild`;
  // empty when the pass has no prelude or it cannot be built or stored.
  std::string obtain(const ParsePass& pass, bool rebuild);
  // The cached prelude of a pass if it exists; never builds one.
  std::string existing(const ParsePass& pass) const;
  const std::string& last_error() const { return error_; }

 private:
  std::filesystem::path dir_;
  std::string error_;
};

}  // namespace kgb::lint::detail
