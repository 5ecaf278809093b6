#include "toolchain_paths.h"

#include <cstdlib>

#include "lint_config.h"

namespace kgb::lint::detail {
namespace {

std::string env_or(std::initializer_list<const char*> variables, const char* fallback) {
  for (const char* variable : variables) {
    const char* value = std::getenv(variable);
    if (value && *value) return value;
  }
  return fallback;
}

}  // namespace

std::string clang_resource_dir() { return env_or({"KGB_LINT_RESOURCE_DIR"}, KGB_LINT_RESOURCE_DIR); }
std::string cuda_path() { return env_or({"KGB_CUDA_PATH", "CUDA_PATH"}, KGB_LINT_CUDA_PATH); }
std::string omp_include_dir() { return env_or({"KGB_LINT_OMP_INCLUDE_DIR"}, KGB_LINT_OMP_INCLUDE_DIR); }
std::string hip_include_dir() { return env_or({"KGB_LINT_HIP_INCLUDE_DIR"}, KGB_LINT_HIP_INCLUDE_DIR); }

std::filesystem::path default_cache_dir() {
  if (const char* dir = std::getenv("KGB_LINT_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "kgb" / "lint";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "kgb" / "lint";
  return std::filesystem::temp_directory_path() / "kgb-lint-cache";
}

}  // namespace kgb::lint::detail
