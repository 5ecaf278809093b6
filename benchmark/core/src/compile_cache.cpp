#include "kgb/compile_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace kgb {

namespace {

// Where a command name resolves on PATH (execvp's search), or empty.
std::string resolve_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// path, size and modification time of a file a build step names; empty for
// what is not an absolute file (flags, the work folder's own files).
std::string file_identity(std::string path) {
  if (!path.empty() && path[0] == '@') path.erase(0, 1);  // a response file
  if (path.empty() || path[0] != '/') return {};
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  return path + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

void append_field(std::string& key, const std::string& field) {
  key += std::to_string(field.size());
  key += ':';
  key += field;
}

}  // namespace

std::string CompileCache::key(const std::string& platform, const std::string& source, const std::string& glue,
                              const std::vector<std::vector<std::string>>& commands) {
  std::string key;
  append_field(key, platform);
  append_field(key, source);
  append_field(key, glue);
  const char* path = std::getenv("PATH");
  append_field(key, path ? path : "");
  for (const auto& argv : commands) {
    append_field(key, std::to_string(argv.size()));
    for (size_t i = 0; i < argv.size(); ++i) {
      append_field(key, argv[i]);
      // The compiler itself, and every file an argument names (the runner
      // library, a response file listing more libraries).
      append_field(key, file_identity(i == 0 ? resolve_on_path(argv[i]) : argv[i]));
    }
  }
  return key;
}

CompileCache* CompileCache::process_cache() {
  static CompileCache* cache = []() -> CompileCache* {
    uint64_t megabytes = 256;
    if (const char* env = std::getenv("KGB_COMPILE_CACHE_MB")) {
      char* end = nullptr;
      const unsigned long long value = std::strtoull(env, &end, 10);
      if (end == env || *end != '\0') throw std::runtime_error("KGB_COMPILE_CACHE_MB must be a whole number of megabytes");
      megabytes = value;
    }
    return megabytes == 0 ? nullptr : new CompileCache(megabytes << 20);
  }();
  return cache;
}

}  // namespace kgb
