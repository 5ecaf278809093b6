#include "prelude_cache.h"

#include <cstdio>
#include <random>

#include <clang/Basic/Version.h>
#include <unistd.h>

#include "frontend.h"

namespace kgb::lint::detail {
namespace {

uint64_t fnv1a(uint64_t hash, std::string_view text) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace

std::string prelude_key(const ParsePass& pass) {
  uint64_t hash = 14695981039346656037ull;
  hash = fnv1a(hash, clang::getClangFullVersion());
  hash = fnv1a(hash, pass.name);
  for (const auto& arg : pass.args) hash = fnv1a(fnv1a(hash, arg), "\x1f");
  hash = fnv1a(hash, pass.prelude_path);
  hash = fnv1a(hash, pass.prelude);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string PreludeCache::existing(const ParsePass& pass) const {
  if (pass.prelude.empty()) return {};
  std::error_code ec;
  const std::filesystem::path file = dir_ / (pass.name + "-" + prelude_key(pass) + ".pch");
  return std::filesystem::is_regular_file(file, ec) ? file.string() : std::string();
}

std::string PreludeCache::obtain(const ParsePass& pass, bool rebuild) {
  error_.clear();
  if (pass.prelude.empty()) return {};
  std::error_code ec;
  const std::filesystem::path file = dir_ / (pass.name + "-" + prelude_key(pass) + ".pch");
  if (!rebuild && std::filesystem::is_regular_file(file, ec)) return file.string();
  std::filesystem::create_directories(dir_, ec);
  std::random_device entropy;
  const std::filesystem::path temporary =
      dir_ / (file.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(entropy()));
  if (!build_prelude(pass, temporary.string(), &error_)) {
    std::filesystem::remove(temporary, ec);
    return {};
  }
  std::filesystem::rename(temporary, file, ec);
  if (ec) {
    error_ = "cannot store the precompiled prelude in " + dir_.string() + ": " + ec.message();
    std::filesystem::remove(temporary, ec);
    return {};
  }
  return file.string();
}

}  // namespace kgb::lint::detail
