// Where the parser finds Clang's own headers, CUDA, omp.h, HIP, and where the
// prelude cache lives. Configure-time defaults, overridable at run time.
#pragma once

#include <filesystem>
#include <string>

namespace kgb::lint::detail {

std::string clang_resource_dir();  // KGB_LINT_RESOURCE_DIR, else the configured one
std::string cuda_path();           // KGB_CUDA_PATH, CUDA_PATH, else the configured one; may be empty
std::string omp_include_dir();     // KGB_LINT_OMP_INCLUDE_DIR, else the configured one; may be empty
std::string hip_include_dir();     // KGB_LINT_HIP_INCLUDE_DIR, else the configured one; may be empty
std::filesystem::path default_cache_dir();  // see LintRequest::cache_dir

}  // namespace kgb::lint::detail
