#include "invocation.h"

#include <cctype>
#include <filesystem>
#include <regex>

#include "kgb/paths.h"
#include "toolchain_paths.h"

namespace kgb::lint::detail {
namespace {

std::string sanitised_base_name(const std::string& file_name) {
  std::string base = std::filesystem::path(file_name).filename().string();
  std::string out;
  for (char c : base) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  if (out.empty() || out == "." || out == "..") out = "candidate";
  return out;
}

// Headers nearly every candidate of a language includes. Precompiled once per
// machine, they turn a parse of the CUDA runtime headers (~0.8 s) into a load.
const char* prelude_text(Language language) {
  switch (language) {
    case Language::Cuda:
      return "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
             "#include <cstdint>\n#include <cstdio>\n#include <cmath>\n#include <algorithm>\n";
    case Language::Cpp:
      return "#include <cstdint>\n#include <cstddef>\n#include <cstdio>\n#include <cstring>\n#include <cmath>\n"
             "#include <algorithm>\n#include <vector>\n#include <limits>\n";
    case Language::OpenCLHost:
      return "#include <cstdint>\n#include <cstddef>\n#include <cstdio>\n#include <cstring>\n#include <cmath>\n"
             "#include <algorithm>\n#include <vector>\n#include <string>\n";
    case Language::Hip:
      return "#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n#include <cstdint>\n#include <cstdio>\n"
             "#include <cmath>\n#include <algorithm>\n";
    case Language::OpenCLC:
      return "";
  }
  return "";
}

std::vector<std::string> common_args() {
  return {"-fsyntax-only", "-resource-dir", clang_resource_dir(), "-w", "-ferror-limit=50",
          "-fno-color-diagnostics"};
}

void add_include_dirs(std::vector<std::string>& args, const LintRequest& request) {
  if (request.platform)
    for (auto& f : platform_parse_flags(*request.platform)) args.push_back(f);
  args.push_back("-I" + abi_include_dir().string());
  for (const auto& dir : request.include_dirs) args.push_back("-I" + dir);
}

bool has_std_flag(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (a.rfind("-std=", 0) == 0) return true;
  return false;
}

ParsePass make_pass(std::string name, Language language, std::vector<std::string> args) {
  ParsePass pass;
  pass.language = language;
  pass.prelude = prelude_text(language);
  if (!pass.prelude.empty()) pass.prelude_path = std::string(kPreludeDir) + "/" + name + ".h";
  pass.name = std::move(name);
  pass.args = std::move(args);
  return pass;
}

}  // namespace

std::string clang_cuda_arch(const std::string& platform_arch) {
  static const std::regex sm(R"(sm_(\d+)(a?))");
  std::smatch m;
  if (std::regex_match(platform_arch, m, sm)) {
    const int number = std::stoi(m[1]);
    // Clang 19 knows sm_35 ... sm_90a and silently ignores newer ones.
    if (number >= 35 && number <= 90) return platform_arch;
  }
  return "sm_90";
}

std::vector<std::string> platform_parse_flags(const Platform& platform) {
  std::vector<std::string> out;
  const std::pair<std::string, std::string> placeholders[] = {
      {"{abi}", abi_include_dir().string()},
      {"{source_root}", source_root().string()},
      {"{build_root}", build_root().string()},
  };
  const auto substitute = [&](std::string s) {
    for (const auto& [name, value] : placeholders)
      for (size_t at; (at = s.find(name)) != std::string::npos;) s.replace(at, name.size(), value);
    return s;
  };
  const auto& cmd = platform.compile_command;
  for (size_t i = 0; i < cmd.size(); ++i) {
    const std::string& token = cmd[i];
    const bool has_next = i + 1 < cmd.size();
    if (token == "-Xcompiler" || token == "-Xlinker" || token == "-Xptxas") {
      ++i;  // flags for another tool
      continue;
    }
    if ((token == "-I" || token == "-isystem" || token == "-D" || token == "-U") && has_next) {
      const std::string value = substitute(cmd[++i]);
      if (value.find('{') != std::string::npos) continue;
      if (token == "-isystem") {
        out.push_back(token);
        out.push_back(value);
      } else {
        out.push_back(token + value);
      }
      continue;
    }
    std::string flag;
    if (token.rfind("-I", 0) == 0 || token.rfind("-D", 0) == 0 || token.rfind("-U", 0) == 0) {
      flag = substitute(token);
    } else if (token.rfind("-std=", 0) == 0) {
      flag = token;
    } else if (token.rfind("--std=", 0) == 0) {
      flag = token.substr(1);
    } else if (platform.backend == "cpu" && (token.rfind("-march=", 0) == 0 || token.rfind("-mcpu=", 0) == 0 ||
                                             token == "-fopenmp")) {
      flag = token;
    }
    if (!flag.empty() && flag.find('{') == std::string::npos) out.push_back(flag);
  }
  return out;
}

ParsePass opencl_c_pass() {
  auto args = common_args();
  // Parsed as OpenCL C 2.0: 1.2 rejects program-scope variables before the
  // rules could name them. SPIR keeps the address spaces of a device target.
  for (const char* a : {"--target=spir64", "-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header"})
    args.emplace_back(a);
  return make_pass("opencl-c", Language::OpenCLC, std::move(args));
}

ParsePlan plan_parse(const LintRequest& request) {
  ParsePlan plan;
  plan.main_path = std::string(kInputDir) + "/" + sanitised_base_name(request.file_name);
  if (request.platform && !request.platform->backend.empty()) {
    plan.backend = request.platform->backend;
  } else {
    switch (request.language) {
      case Language::Cpp: plan.backend = "cpu"; break;
      case Language::Cuda: plan.backend = "cuda"; break;
      case Language::Hip: plan.backend = "hip"; break;
      case Language::OpenCLHost:
      case Language::OpenCLC: plan.backend = "opencl"; break;
    }
  }
  const std::string arch = request.platform ? request.platform->arch : std::string();

  switch (request.language) {
    case Language::Cpp: {
      auto args = common_args();
      if (!arch.empty() && arch != "x86_64" && arch.find("sm_") != 0) args.push_back("--target=" + arch + "-linux-gnu");
      for (const char* a : {"-x", "c++", "-fopenmp"}) args.emplace_back(a);
      add_include_dirs(args, request);
      if (!has_std_flag(args)) args.emplace_back("-std=c++17");
      if (auto omp = omp_include_dir(); !omp.empty()) {
        args.push_back("-idirafter" + omp);
        // GCC's omp.h names deallocators in __malloc__(f) attributes, which Clang
        // rejects; the argument form carries nothing a parse needs.
        args.emplace_back("-D__malloc__(...)=");
      }
      plan.passes.push_back(make_pass("c++", Language::Cpp, std::move(args)));
      break;
    }
    case Language::Cuda: {
      const std::string cuda = cuda_path();
      if (cuda.empty()) {
        plan.unavailable = "no CUDA installation was found for parsing CUDA sources (set KGB_CUDA_PATH)";
        break;
      }
      for (const char* side : {"device", "host"}) {
        auto args = common_args();
        for (const char* a : {"-x", "cuda", "-nocudalib", "-Wno-unknown-cuda-version",
                              // Clang 19 knows CUDA up to 12.5; naming it selects the kernel
                              // launch API that CUDA 12 and 13 headers declare, on both sides.
                              "-Xclang", "-target-sdk-version=12.5"})
          args.emplace_back(a);
        args.push_back("--cuda-path=" + cuda);
        // CUDA 13 keeps thrust, cub and libcu++ in include/cccl, which nvcc adds itself.
        if (std::error_code ec; std::filesystem::is_directory(cuda + "/include/cccl", ec)) {
          args.emplace_back("-isystem");
          args.push_back(cuda + "/include/cccl");
        }
        args.push_back("--cuda-gpu-arch=" + clang_cuda_arch(arch));
        args.push_back(std::string(side) == "device" ? "--cuda-device-only" : "--cuda-host-only");
        // CUDA 13 dropped texture_fetch_functions.h, which Clang 19's wrapper still includes.
        args.push_back("-isystem");
        args.push_back(kStubDir);
        add_include_dirs(args, request);
        if (!has_std_flag(args)) args.emplace_back("-std=c++17");
        plan.passes.push_back(make_pass(std::string("cuda-") + side, Language::Cuda, std::move(args)));
      }
      break;
    }
    case Language::Hip: {
      const std::string hip = hip_include_dir();
      if (hip.empty()) {
        plan.unavailable = "no HIP headers were found for parsing HIP sources (install libamdhip64-dev)";
        break;
      }
      // The ROCm root holds include/hip; Clang's HIP driver finds the headers and
      // its own runtime wrapper from there.
      const std::string rocm = std::filesystem::path(hip).parent_path().string();
      const std::string offload_arch = arch.rfind("gfx", 0) == 0 ? arch : std::string("gfx90a");
      for (const char* side : {"device", "host"}) {
        auto args = common_args();
        for (const char* a : {"-x", "hip", "-nogpulib"}) args.emplace_back(a);
        args.push_back("--rocm-path=" + rocm);
        args.push_back("--offload-arch=" + offload_arch);
        args.push_back(std::string(side) == "device" ? "--cuda-device-only" : "--cuda-host-only");
        add_include_dirs(args, request);
        if (!has_std_flag(args)) args.emplace_back("-std=c++17");
        plan.passes.push_back(make_pass(std::string("hip-") + side, Language::Hip, std::move(args)));
      }
      break;
    }
    case Language::OpenCLHost: {
      auto args = common_args();
      for (const char* a : {"-x", "c++"}) args.emplace_back(a);
      add_include_dirs(args, request);
      if (!has_std_flag(args)) args.emplace_back("-std=c++17");
      plan.passes.push_back(make_pass("opencl-host", Language::OpenCLHost, std::move(args)));
      break;
    }
    case Language::OpenCLC:
      plan.passes.push_back(opencl_c_pass());
      break;
  }
  if (!request.use_precompiled_prelude)
    for (auto& pass : plan.passes) {
      pass.prelude.clear();
      pass.prelude_path.clear();
    }
  return plan;
}

}  // namespace kgb::lint::detail
