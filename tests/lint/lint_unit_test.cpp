// The Clang-free parts of kgb lint: patterns, input checks, languages, the
// parse plan, default lists and the report's JSON form.
#include <doctest/doctest.h>

#include <algorithm>
#include <regex>

#include <nlohmann/json.hpp>

#include "compiler_view.h"
#include "input_check.h"
#include "invocation.h"
#include "kgb/paths.h"
#include "kgb/lint.h"
#include "patterns.h"
#include "rules/line_marker.h"
#include "rules/opencl_conditional.h"
#include "policy.h"

using namespace kgb;
using namespace kgb::lint;
using namespace kgb::lint::detail;

TEST_CASE("glob_match") {
  CHECK(detail::glob_match("cudaEvent*", "cudaEventRecord"));
  CHECK(detail::glob_match("cudaEvent*", "cudaEvent"));
  CHECK_FALSE(detail::glob_match("cudaEvent*", "cudaStreamCreate"));
  CHECK(detail::glob_match("exec*", "execvp"));
  CHECK(detail::glob_match("*::accessPolicyWindow", "cudaLaunchAttributeValue::accessPolicyWindow"));
  CHECK(detail::glob_match("cuda/*", "cuda/std/atomic"));
  CHECK(detail::glob_match("?gemm_", "sgemm_"));
  CHECK_FALSE(detail::glob_match("?gemm_", "sgemm"));
  CHECK(detail::glob_match("*intrin.h", "immintrin.h"));
  CHECK(detail::glob_match("a*b*c", "aXXbYYc"));
  CHECK_FALSE(detail::glob_match("a*b*c", "aXXbYY"));
}

TEST_CASE("name patterns match qualified names, members, globs and exceptions") {
  NamePatterns p{"system", "std::thread", "!std::thread::hardware_concurrency", "at::", "cublas*", "::getenv"};
  CHECK(p.match("system") == "system");
  CHECK(p.match("ns::system").empty());  // a member or namespaced function of the same name
  CHECK(p.match("systemd").empty());
  CHECK(p.match("std::thread") == "std::thread");
  CHECK(p.match("std::thread::join") == "std::thread");
  CHECK(p.match("std::thread::hardware_concurrency").empty());
  CHECK(p.match("std::this_thread::yield").empty());
  CHECK(p.match("at::Tensor::add") == "at");
  CHECK(p.match("at").empty());  // "at::" bans the members of at, not a name at
  CHECK(p.match("attention").empty());
  NamePatterns scope{"c10::"};
  CHECK(scope.match("c10").empty());  // a variable named c10
  CHECK(scope.match("c10::Half") == "c10");
  CHECK(p.match("cublasSgemm_v2") == "cublas*");
  CHECK(p.match("getenv") == "getenv");
  const auto plain = p.plain_names();
  CHECK(std::find(plain.begin(), plain.end(), "system") != plain.end());
  CHECK(std::find(plain.begin(), plain.end(), "cublas*") == plain.end());
  CHECK(std::find(plain.begin(), plain.end(), "std::thread") == plain.end());
}

TEST_CASE("split_list trims and drops empty items") {
  CHECK(split_list(" a, b ,,c ") == std::vector<std::string>{"a", "b", "c"});
  CHECK(split_list("").empty());
}

TEST_CASE("input checks: size, NUL bytes, binary data, UTF-8 text") {
  LintRequest request;
  request.file_name = "k.cu";
  request.source = "int main() { return 0; } // naïve café ✓\n";
  CHECK_FALSE(check_input(request));
  request.source = std::string("int x;\0int y;", 13);
  auto f = check_input(request);
  REQUIRE(f);
  CHECK(f->rule == "lint-input-not-text");
  CHECK(f->severity == "reject");
  CHECK(f->location == "k.cu");
  request.source = std::string(2000, 'a');
  request.size_limit_bytes = 1000;
  f = check_input(request);
  REQUIRE(f);
  CHECK(f->rule == "lint-input-too-large");
  request.size_limit_bytes = 1 << 20;
  request.source = "// caf\xe9 in Latin-1 once\nint x;\n";  // a stray byte is tolerated
  CHECK_FALSE(check_input(request));
  request.source = std::string(100, '\x01') + "int x;";
  CHECK(check_input(request));
}

TEST_CASE("languages by backend and by file") {
  Platform p;
  p.backend = "cuda";
  CHECK(language_for(p) == Language::Cuda);
  p.backend = "opencl";
  CHECK(language_for(p) == Language::OpenCLHost);
  p.backend = "quantum";
  CHECK(language_for(p) == Language::Cpp);
  CHECK(language_for_file("a/b/kernel.cu") == Language::Cuda);
  CHECK(language_for_file("k.CL") == Language::OpenCLC);
  CHECK(language_for_file("k.hip") == Language::Hip);
  CHECK(language_for_file("k.cc") == Language::Cpp);
  CHECK_FALSE(language_for_file("k.py"));
  CHECK(language_name(Language::OpenCLHost) == "opencl-host");
}

TEST_CASE("the parse plan: passes, arguments and the CUDA architecture") {
  Platform platform;
  platform.backend = "cuda";
  platform.arch = "sm_100";
  platform.compile_command = {"nvcc", "-O3", "-std=c++17", "-I{abi}", "-DKGB_FAST=1", "-Xcompiler", "-fopenmp",
                              "-c", "{source}", "-o", "{object}"};
  LintRequest request;
  request.language = Language::Cuda;
  request.platform = &platform;
  request.file_name = "dir/../kernel one.cu";
  const ParsePlan plan = plan_parse(request);
  REQUIRE(plan.passes.size() == 2);
  CHECK(plan.passes[0].name == "cuda-device");
  CHECK(plan.passes[1].name == "cuda-host");
  CHECK(plan.main_path == std::string(kInputDir) + "/kernel_one.cu");
  const auto& args = plan.passes[0].args;
  const auto has = [&](const std::string& a) { return std::find(args.begin(), args.end(), a) != args.end(); };
  CHECK(has("--cuda-gpu-arch=sm_90"));  // Clang 19 parses sm_100 as sm_90
  CHECK(has("--cuda-device-only"));
  CHECK(has("-DKGB_FAST=1"));
  CHECK(has("-std=c++17"));
  CHECK_FALSE(has("-fopenmp"));  // a flag for the host compiler, not for the parse
  CHECK_FALSE(plan.passes[0].prelude.empty());

  CHECK(clang_cuda_arch("sm_80") == "sm_80");
  CHECK(clang_cuda_arch("sm_90a") == "sm_90a");
  CHECK(clang_cuda_arch("sm_120") == "sm_90");
  CHECK(clang_cuda_arch("gfx90a") == "sm_90");

  request.use_precompiled_prelude = false;
  CHECK(plan_parse(request).passes[0].prelude.empty());

  request.language = Language::OpenCLHost;
  platform.backend = "opencl";
  const ParsePlan opencl = plan_parse(request);
  REQUIRE(opencl.passes.size() == 1);
  CHECK(opencl.passes[0].name == "opencl-host");
  const ParsePass program = opencl_c_pass();
  CHECK(std::find(program.args.begin(), program.args.end(), "-cl-std=CL2.0") != program.args.end());
}

TEST_CASE("platform flags keep what matters for parsing") {
  Platform platform;
  platform.backend = "cpu";
  platform.compile_command = {"g++", "-O3", "-march=native", "-fopenmp", "-I", "{abi}", "-isystem", "/opt/x",
                              "-D", "N=4", "-UNDEBUG", "{flags}", "-c", "{source}"};
  const auto flags = platform_parse_flags(platform);
  CHECK(flags == std::vector<std::string>{"-march=native", "-fopenmp", "-I" + abi_include_dir().string(), "-isystem",
                                          "/opt/x", "-DN=4", "-UNDEBUG"});
}

TEST_CASE("include policy: allowlists, absolute paths, OpenCL C programs") {
  const auto cuda = default_allowed_includes("cuda");
  CHECK_FALSE(include_problem("cuda_runtime.h", cuda));
  CHECK_FALSE(include_problem("cooperative_groups/reduce.h", cuda));
  CHECK_FALSE(include_problem("cub/block/block_reduce.cuh", cuda));
  CHECK_FALSE(include_problem("kgb_kernel.h", cuda));
  CHECK(include_problem("cublas_v2.h", cuda));
  CHECK(include_problem("thread", cuda));
  CHECK(include_problem("/dev/zero", cuda));
  CHECK(include_problem("../../secret.h", cuda));
  const auto cpu = default_allowed_includes("cpu");
  CHECK_FALSE(include_problem("omp.h", cpu));
  CHECK_FALSE(include_problem("immintrin.h", cpu));
  CHECK(include_problem("cuda_runtime.h", cpu));
  CHECK(include_problem("chrono", cpu));
  RuleSetup setup;
  setup.language = Language::OpenCLC;
  setup.backend = "opencl";
  CHECK(include_allowlist_for(setup).empty());
  setup.language = Language::OpenCLHost;
  Platform narrow;
  narrow.backend = "opencl";
  narrow.allowed_includes = {"kgb_opencl.h"};
  setup.platform = &narrow;
  CHECK(include_allowlist_for(setup) == std::vector<std::string>{"kgb_opencl.h"});
}

TEST_CASE("OpenCL kernels are recognised inside string literals") {
  CHECK(defines_opencl_kernel("__kernel void f(__global float* x) {}"));
  CHECK(defines_opencl_kernel("kernel\n  void f() {}"));
  CHECK(defines_opencl_kernel("__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void f() {}"));
  CHECK_FALSE(defines_opencl_kernel("the kernel is void of meaning; x"));
  CHECK_FALSE(defines_opencl_kernel("my_kernel void"));
  CHECK_FALSE(defines_opencl_kernel("scale"));
}

TEST_CASE("default banned APIs and symbol allowlists") {
  const auto banned = default_banned_apis("aten");
  NamePatterns patterns;
  patterns.add_all(banned);
  CHECK_FALSE(patterns.match("cublasSgemm_v2").empty());
  CHECK_FALSE(patterns.match("at::Tensor").empty());
  CHECK_FALSE(patterns.match("cblas_sgemm").empty());
  CHECK_FALSE(patterns.match("cutlass::gemm::device::Gemm").empty());
  CHECK(patterns.match("cub::BlockReduce").empty());
  CHECK(patterns.match("thrust::sort").empty());  // banned by sorting tasks, not by default
  const auto vllm = default_banned_apis("vllm");
  CHECK(vllm.size() > banned.size());
  CHECK_FALSE(default_allowed_symbols("cpu").empty());
}

TEST_CASE("the rule catalog documents every rule") {
  const auto catalog = rule_catalog();
  CHECK(catalog.size() >= 12);
  for (const auto& rule : catalog) {
    CAPTURE(rule.name);
    CHECK_FALSE(rule.description.empty());
    CHECK((rule.default_severity == "reject" || rule.default_severity == "warn"));
    bool has_severity = false;
    for (const auto& o : rule.options) has_severity |= o.name == "severity";
    CHECK(has_severity);
  }
}

TEST_CASE("reports survive the JSON round trip") {
  LintReport report;
  report.parse_ok = false;
  report.seconds = 0.25;
  report.passes = {"cuda-device", "cuda-host"};
  report.diagnostics.push_back({"k.cu", 3, 7, "error", "expected ';'", "  int x"});
  LintFinding f;
  f.rule = "timing-api";
  f.layer = "L1";
  f.severity = "reject";
  f.message = "`clock64` is a timing API";
  f.fix_hint = "remove it";
  f.file = "k.cu";
  f.line = 9;
  f.column = 3;
  f.location = "k.cu:9:3";
  f.excerpt = "  clock64();";
  report.findings.push_back(f);
  const nlohmann::json j = report;
  CHECK(j.at("rejected") == true);
  const LintReport back = j.get<LintReport>();
  CHECK(back.parse_ok == false);
  CHECK(back.passes == report.passes);
  REQUIRE(back.diagnostics.size() == 1);
  CHECK(back.diagnostics[0].line == 3);
  CHECK(back.diagnostics[0].excerpt == "  int x");
  REQUIRE(back.findings.size() == 1);
  CHECK(back.findings[0].fix_hint == "remove it");
  CHECK(back.findings[0].column == 3);
  CHECK(back.rejected());
  CHECK_FALSE(back.clean());
}

TEST_CASE("the toolchain's atomic helpers are allowed per target, and nothing near them") {
  const auto matches = [](const std::vector<std::string>& patterns, const std::string& symbol) {
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const std::string& p) { return std::regex_match(symbol, std::regex(p)); });
  };
  const auto aarch64 = toolchain_atomic_helpers("aarch64");
  const auto x86 = toolchain_atomic_helpers("x86_64");
  const auto riscv = toolchain_atomic_helpers("riscv64");
  for (const char* op : {"cas", "swp", "ldadd", "ldclr", "ldeor", "ldset"})
    for (const char* size : {"1", "2", "4", "8", "16"})
      for (const char* order : {"relax", "acq", "rel", "acq_rel"}) {
        const std::string symbol = std::string("__aarch64_") + op + size + "_" + order;
        CAPTURE(symbol);
        CHECK(matches(aarch64, symbol));
        CHECK_FALSE(matches(x86, symbol));
        CHECK_FALSE(matches(riscv, symbol));
      }
  for (const char* symbol : {"__atomic_fetch_add_1", "__atomic_fetch_or_2", "__atomic_compare_exchange_16",
                             "__atomic_load_16", "__atomic_exchange", "__sync_fetch_and_add_1"}) {
    CAPTURE(symbol);
    CHECK(matches(riscv, symbol));
    CHECK(matches(aarch64, symbol));
  }
  for (const char* foreign : {"__aarch64_sync_cache_range", "__aarch64_cas32_relax", "__atomic_signal_fence_x",
                              "getpid", "__atomic_fetch_add_3", "__clear_cache"}) {
    CAPTURE(foreign);
    CHECK_FALSE(matches(aarch64, foreign));
    CHECK_FALSE(matches(riscv, foreign));
  }
  CHECK(toolchain_atomic_helpers("sm_90").empty());
}

TEST_CASE("compiled lines follow the line markers of the compiler's preprocessed output") {
  // What g++ -E -dD -dI prints: markers for headers and the command line,
  // the candidate's #define and #include lines, blank runs, a raw string
  // over several lines.
  const std::string preprocessed =
      "# 0 \"candidate.cpp\"\n"
      "# 0 \"<built-in>\"\n"
      "#define __GNUC__ 12\n"
      "# 1 \"candidate.cpp\"\n"
      "#include <cstdint>\n"
      "# 1 \"/usr/include/c++/12/cstdint\" 1 3\n"
      "typedef int int32_t;\n"
      "# 2 \"candidate.cpp\" 2\n"
      "\n"
      "#define CACHE 1\n"
      "static int g;\n"
      "\n"
      "\n"
      "const char* s = R\"(a\n"
      "b)\";\n"
      "# 40 \"candidate.cpp\"\n"
      "  int late;\n"
      "#line 50 \"candidate.cpp\"\n"
      "int fifty;\n";
  CHECK(compiled_lines(preprocessed, "candidate.cpp") == std::set<int>{1, 3, 4, 7, 8, 40, 50});
  CHECK(compiled_lines(preprocessed, "other.cpp").empty());
  CHECK(compiled_lines("", "candidate.cpp").empty());
  // A header's lines never count as the candidate's, even at the same numbers.
  CHECK(compiled_lines("# 1 \"candidate.cpp\"\n# 1 \"x.h\" 1\nint a;\n", "candidate.cpp").empty());
}

TEST_CASE("nvcc --dryrun yields its host and device preprocessing runs, pointed at lint's files") {
  const std::string dryrun =
      "#$ _NVVM_BRANCH_=nvvm\n"
      "#$ INCLUDES=\"-I/usr/local/cuda/bin/../targets/x86_64-linux/include\"  \n"
      "#$ gcc -std=c++17 -D__CUDA_ARCH_LIST__=900 -E -x c++ -D__CUDACC__ -D__NVCC__  -O3 -I\"/abi\" "
      "\"-isystem\" \"/cuda/include/cccl\" -include \"cuda_runtime.h\" -m64 \"candidate.cu\" -o "
      "\"/tmp/tmpxft-5_candidate.cpp4.ii\" \n"
      "#$ cudafe++ --c++17 --orig_src_file_name \"candidate.cu\" \"/tmp/tmpxft-5_candidate.cpp4.ii\" \n"
      "#$ gcc -std=c++17 -D__CUDA_ARCH__=900 -E -x c++ -O3 -I\"/abi\" -include \"cuda_runtime.h\" -m64 "
      "\"candidate.cu\" -o \"/tmp/tmpxft-7_candidate.cpp1.ii\" \n"
      "#$ gcc -std=c++17 -D__CUDA_ARCH__=900 -c -x c++ -O3 \"/tmp/tmpxft-6_candidate.cudafe1.cpp\" -o \"candidate.o\" \n";
  const auto passes = nvcc_preprocess_passes(dryrun, "candidate.cu", "/work/pp-");
  REQUIRE(passes.size() == 2);
  CHECK(passes[0].name == "nvcc host (gcc -E)");
  CHECK(passes[1].name == "nvcc device (gcc -E)");
  CHECK(passes[0].output_file == "/work/pp-0.ii");
  const auto& argv = passes[0].argv;
  CHECK(argv.front() == "gcc");
  CHECK(std::find(argv.begin(), argv.end(), "-I/abi") != argv.end());
  CHECK(std::find(argv.begin(), argv.end(), "-isystem") != argv.end());
  CHECK(std::find(argv.begin(), argv.end(), "cuda_runtime.h") != argv.end());
  CHECK(std::find(argv.begin(), argv.end(), "-dD") != argv.end());
  const auto out = std::find(argv.begin(), argv.end(), "-o");
  REQUIRE(out + 1 < argv.end());
  CHECK(out[1] == "/work/pp-0.ii");
  CHECK(std::find(argv.begin(), argv.end(), "/tmp/tmpxft-5_candidate.cpp4.ii") == argv.end());
  CHECK(nvcc_preprocess_passes("#$ gcc -E other.cu -o x.ii\n", "candidate.cu", "/p-").empty());
}

TEST_CASE("the compiler's preprocessing passes come from the compile step's own command") {
  std::string why;
  const auto gcc = compiler_passes({"g++", "-std=c++17", "-O3", "-fopenmp", "-Iabi", "-c", "candidate.cpp", "-o", "candidate.o"},
                                   "candidate.cpp", "/w", &why);
  REQUIRE(gcc.size() == 1);
  CHECK(gcc[0].argv == std::vector<std::string>{"g++", "-std=c++17", "-O3", "-fopenmp", "-Iabi", "-E", "-dD", "-dI",
                                                 "candidate.cpp", "-o", "/w/preprocessed-0.ii"});
  const auto hip = compiler_passes({"hipcc", "--offload-arch=gfx90a", "-O3", "-c", "candidate.hip", "-o", "candidate.o"},
                                   "candidate.hip", "/w", &why);
  REQUIRE(hip.size() == 2);
  CHECK(hip[0].argv[1] == "--cuda-host-only");
  CHECK(hip[1].argv[1] == "--cuda-device-only");
  CHECK(compiler_passes({}, "candidate.cpp", "/w", &why).empty());
  CHECK(why == "the platform has no compile command");
}

TEST_CASE("OpenCL C programs may branch on their own macros, not on the driver's") {
  for (const char* name : {"__OPENCL_VERSION__", "__OPENCL_C_VERSION__", "__NV_CL_C_VERSION", "__has_include", "_WIN32",
                           "cl_khr_fp16", "cl_khr_fp64", "CL_VERSION_2_0", "__opencl_c_generic_address_space",
                           "FP_FAST_FMAF", "FULL_PROFILE", "NVIDIA", "amd", "Intel", "POCL"}) {
    CAPTURE(name);
    CHECK_FALSE(driver_macro_family(name).empty());
  }
  for (const char* name : {"TILE", "KGB_DT", "NEED_FP64", "B_TENSOR", "RM", "_tile", "FLT_MAX", "NVIDIA_LIKE", "clamp"}) {
    CAPTURE(name);
    CHECK(driver_macro_family(name).empty());
  }
}

TEST_CASE("conditional directives are found however they are spelled, and only directives") {
  for (const char* text : {"#if X\n#endif\n", "  /* c */ # ifdef X\n#endif\n", "%:ifndef X\n%:endif\n",
                           "??=if 1\n??=endif\n", "#\\\nif 1\n#endif\n", "int a;\n#else\n", "#elif 1\n"}) {
    const std::string source = text;
    CAPTURE(source);
    CHECK(has_conditional_directive(source));
  }
  for (const char* text : {"", "#include <x>\n#define IF 1\n", "const char* s = \"\\n#if 1\";\n",
                           "const char* s = R\"(\n#if 1\n#endif\n)\";\n", "// #if 1\n", "int a = 1; # if\n"}) {
    const std::string source = text;
    CAPTURE(source);
    CHECK_FALSE(has_conditional_directive(source));
  }
}
