// What to run Clang on for one request: the passes (a CUDA source is parsed
// once for the device and once for the host, so code under either side of
// `#ifdef __CUDA_ARCH__` is seen), their driver arguments, and the header each
// pass precompiles. Plain strings; no Clang here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kgb/lint.h"

namespace kgb::lint::detail {

// Virtual locations inside the parser's file system overlay.
inline constexpr const char* kInputDir = "/kgb-lint/input";
inline constexpr const char* kStubDir = "/kgb-lint/stubs";
inline constexpr const char* kPreludeDir = "/kgb-lint/prelude";

struct ParsePass {
  std::string name;  // "c++", "cuda-device", "cuda-host", "hip-host", "opencl-host", "opencl-c"
  Language language = Language::Cpp;
  std::vector<std::string> args;  // driver arguments, without program name and input file
  std::string prelude;            // header text precompiled for this pass; empty: none
  std::string prelude_path;       // where the prelude lives in the overlay
};

struct ParsePlan {
  std::string main_path;  // the candidate's path in the overlay
  std::string backend;    // "cpu", "cuda", "hip", "opencl"
  std::vector<ParsePass> passes;
  std::optional<std::string> unavailable;  // why this language cannot be parsed on this machine
};

ParsePlan plan_parse(const LintRequest& request);
// The pass for one OpenCL C program embedded in a launcher.
ParsePass opencl_c_pass();

// -I/-isystem/-D/-U/-std/-march/-fopenmp flags of the platform's compile command
// that matter for parsing, with {abi}, {source_root} and {build_root} replaced
// (kgb/paths.h); flags with other placeholders are dropped.
std::vector<std::string> platform_parse_flags(const Platform& platform);
// The CUDA architecture Clang 19 can parse for a platform arch ("sm_100" -> "sm_90").
std::string clang_cuda_arch(const std::string& platform_arch);

}  // namespace kgb::lint::detail
