// The binary symbol check on objects compiled here: what the source rules
// cannot see (token pasting, asm labels) shows up as undefined symbols, and
// definitions of runtime functions as interposition.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "kgb/lint.h"
#include "kgb/paths.h"
#include "kgb/process.h"

namespace {

using namespace kgb;
using namespace kgb::lint;

struct Compiled {
  std::filesystem::path object;
  std::string log;
  bool ok = false;
};

Compiled compile(const TempDir& dir, const std::string& name, const std::string& source,
                 std::vector<std::string> command) {
  const auto source_path = dir.path() / name;
  std::ofstream(source_path) << source;
  Compiled out;
  out.object = dir.path() / (name + ".o");
  command.push_back("-I" + abi_include_dir().string());
  command.insert(command.end(), {"-c", source_path.string(), "-o", out.object.string()});
  auto result = run_command(command, dir.path(), 120);
  out.ok = result && result->status.exited && result->status.code == 0;
  if (result) out.log = result->output;
  return out;
}

Compiled compile_cpp(const TempDir& dir, const std::string& name, const std::string& source) {
  return compile(dir, name, source, {KGB_TEST_CXX_COMPILER, "-O2", "-std=c++17", "-fopenmp"});
}

Platform platform_for(const std::string& backend) {
  Platform p;
  p.name = backend + "-test";
  p.backend = backend;
  return p;
}

std::string rules_of(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += f.rule + " " + f.location + ": " + f.message + "\n";
  return out;
}

bool mentions(const std::vector<Finding>& findings, const std::string& rule, const std::string& symbol) {
  for (const auto& f : findings)
    if (f.rule == rule && f.location.find(symbol) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("a clean CPU object passes: libm, libstdc++, OpenMP") {
  TempDir dir("kgb-lint-symbols");
  const auto object = compile_cpp(dir, "clean.cpp", R"(
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <omp.h>
#include "kgb_kernel.h"
namespace { float helper(float v) { return std::exp(v) + std::sqrt(v); } }
extern "C" int kgb_test_scale(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  const float* in = static_cast<const float*>(x->data);
  float* out = static_cast<float*>(y->data);
  std::vector<float> tmp(in, in + kgb_numel(x));
  std::sort(tmp.begin(), tmp.end());
  std::memcpy(out, tmp.data(), tmp.size() * sizeof(float));
#pragma omp parallel for
  for (long i = 0; i < (long)tmp.size(); ++i) out[i] = helper(out[i]) + omp_get_thread_num() * 0;
  if (tmp.empty()) std::printf("empty\n");
  return 0;
}
)");
  REQUIRE_MESSAGE(object.ok, object.log);
  const SymbolReport report = inspect_object_symbols(object.object, platform_for("cpu"), "kgb_test_scale");
  CHECK(report.readable);
  CHECK_FALSE(report.undefined.empty());
  INFO(rules_of(report.findings));
  CHECK(report.findings.empty());
  CHECK(check_object_symbols(object.object, platform_for("cpu")).empty());
}

TEST_CASE("token pasting and asm labels still end up as undefined symbols") {
  TempDir dir("kgb-lint-symbols");
  const auto object = compile_cpp(dir, "hidden.cpp", R"(
#include "kgb_kernel.h"
#define JOIN(a, b) a##b
extern "C" int JOIN(sys, tem)(const char*);
extern "C" char* read_setting(const char*) __asm__("getenv");
extern "C" int clock_gettime(int, void*);
extern "C" int kgb_test_scale(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  long ts[2];
  clock_gettime(1, ts);
  return JOIN(sys, tem)("true") + (read_setting("HOME") != nullptr);
}
)");
  REQUIRE_MESSAGE(object.ok, object.log);
  const auto findings = check_object_symbols(object.object, platform_for("cpu"));
  INFO(rules_of(findings));
  CHECK(mentions(findings, "symbol-allowlist", "system"));
  CHECK(mentions(findings, "symbol-allowlist", "getenv"));
  CHECK(mentions(findings, "symbol-allowlist", "clock_gettime"));
  for (const auto& f : findings) CHECK(f.severity == "reject");
}

TEST_CASE("definitions that would replace runtime functions are interposition") {
  TempDir dir("kgb-lint-symbols");
  const auto object = compile_cpp(dir, "interpose.cpp", R"(
#include <cstddef>
#include <new>
#include "kgb_kernel.h"
extern "C" int cudaEventElapsedTime(float* ms, void*, void*) { *ms = 0.001f; return 0; }
extern "C" void* malloc(size_t n) { static char arena[1 << 16]; return n < sizeof arena ? arena : nullptr; }
void* operator new(std::size_t n) { return malloc(n); }
extern "C" void exported_helper() {}
static void private_helper() {}
namespace { void also_private() {} }
extern "C" int kgb_test_scale(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  private_helper();
  also_private();
  return 0;
}
)");
  REQUIRE_MESSAGE(object.ok, object.log);
  const SymbolReport report = inspect_object_symbols(object.object, platform_for("cuda"), "kgb_test_scale");
  INFO(rules_of(report.findings));
  CHECK(mentions(report.findings, "symbol-interposition", "cudaEventElapsedTime"));
  CHECK(mentions(report.findings, "symbol-interposition", "malloc"));
  CHECK(mentions(report.findings, "symbol-interposition", "_Znwm"));
  CHECK(mentions(report.findings, "symbol-interposition", "exported_helper"));
  CHECK_FALSE(mentions(report.findings, "symbol-interposition", "kgb_test_scale"));
  CHECK_FALSE(mentions(report.findings, "symbol-interposition", "private_helper"));
}

TEST_CASE("a definition of the standard library's clock, under its own or an asm-label name, is interposition") {
  // The runner times with std::chrono::steady_clock::now(); a definition in
  // the candidate takes its place once linked (cheats/timing/steady_clock_now.cpp).
  TempDir dir("kgb-lint-symbols");
  const auto object = compile_cpp(dir, "clock.cpp", R"(
#include <vector>
#include "kgb_kernel.h"
long long forged_now() __asm__("_ZNSt6chrono3_V212steady_clock3nowEv");
long long forged_now() { return 0; }
extern "C" int kgb_test_scale(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  std::vector<double> scratch(4, 1.0);  // std template instances stay allowed
  return scratch[0] > 0 ? 0 : 1;
}
)");
  REQUIRE_MESSAGE(object.ok, object.log);
  const SymbolReport report = inspect_object_symbols(object.object, platform_for("cpu"), "kgb_test_scale");
  INFO(rules_of(report.findings));
  CHECK(mentions(report.findings, "symbol-interposition", "steady_clock"));
  CHECK(std::count_if(report.findings.begin(), report.findings.end(),
                      [](const auto& f) { return f.rule == "symbol-interposition"; }) == 1);
}

TEST_CASE("a platform's own allowlist replaces the default") {
  TempDir dir("kgb-lint-symbols");
  const auto object = compile_cpp(dir, "math.cpp", R"(
#include <cmath>
#include "kgb_kernel.h"
extern "C" int kgb_test_scale(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  static_cast<float*>(y->data)[0] = std::exp(static_cast<const float*>(x->data)[0]) + std::log(2.0f);
  return 0;
}
)");
  REQUIRE_MESSAGE(object.ok, object.log);
  Platform narrow = platform_for("cpu");
  narrow.allowed_symbols = {"expf"};
  const auto findings = check_object_symbols(object.object, narrow);
  INFO(rules_of(findings));
  CHECK_FALSE(mentions(findings, "symbol-allowlist", "expf"));
  const auto report = inspect_object_symbols(object.object, narrow, "", {"logf"});
  CHECK_FALSE(mentions(report.findings, "symbol-allowlist", "logf"));
  narrow.allowed_symbols = {"(unclosed"};
  const auto broken = check_object_symbols(object.object, narrow);
  CHECK(mentions(broken, "symbol-check-failed", "platform descriptor"));
}

TEST_CASE("an unreadable object is a symbol-check-failed finding") {
  TempDir dir("kgb-lint-symbols");
  const auto path = dir.path() / "not-an-object.o";
  std::ofstream(path) << "plain text";
  const auto findings = check_object_symbols(path, platform_for("cpu"));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule == "symbol-check-failed");
  CHECK(findings[0].severity == "reject");
  const auto missing = check_object_symbols(dir.path() / "missing.o", platform_for("cpu"));
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].rule == "symbol-check-failed");
}

#ifdef KGB_TEST_NVCC
TEST_CASE("CUDA objects from nvcc: the launch API passes, events and streams do not") {
  TempDir dir("kgb-lint-symbols");
  const std::vector<std::string> nvcc = {KGB_TEST_NVCC, "-O2", "-std=c++17", "-arch=sm_90"};
  const auto clean = compile(dir, "clean.cu", R"(
#include <cuda_runtime.h>
#include <algorithm>
#include <vector>
#include "kgb_kernel.h"
__global__ void scale(const float* x, float* y, long n) { long i = blockIdx.x * 256L + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
template <int B> __global__ void fill(float* y) { __shared__ float s[B]; s[threadIdx.x] = 0; y[threadIdx.x] = s[0]; }
extern "C" int kgb_test_scale(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  long n = kgb_numel(x);
  std::vector<int> sizes{3, 1, 2};
  std::sort(sizes.begin(), sizes.end());
  cudaFuncSetAttribute(scale, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
  int device = 0; cudaDeviceProp prop; cudaGetDevice(&device); cudaGetDeviceProperties(&prop, device);
  void* scratch = nullptr; cudaMallocAsync(&scratch, 256, s); cudaFreeAsync(scratch, s);
  scale<<<(n + 255) / 256, 256, 0, s>>>(static_cast<const float*>(x->data), static_cast<float*>(y->data), n);
  fill<64><<<1, 64, 0, s>>>(static_cast<float*>(y->data));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
)",
                             nvcc);
  REQUIRE_MESSAGE(clean.ok, clean.log);
  SymbolReport report = inspect_object_symbols(clean.object, platform_for("cuda"), "kgb_test_scale");
  INFO(rules_of(report.findings));
  CHECK(report.findings.empty());

  const auto cheat = compile(dir, "cheat.cu", R"(
#include <cuda_runtime.h>
#include "kgb_kernel.h"
__global__ void k(float* y) { y[0] = 1; }
extern "C" int kgb_test_scale(const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  cudaStream_t side; cudaStreamCreate(&side);
  cudaEvent_t e; cudaEventCreate(&e); cudaEventRecord(e, side);
  k<<<1, 1, 0, side>>>(static_cast<float*>(y->data));
  return 0;
}
)",
                             nvcc);
  REQUIRE_MESSAGE(cheat.ok, cheat.log);
  const auto findings = check_object_symbols(cheat.object, platform_for("cuda"));
  INFO(rules_of(findings));
  CHECK(mentions(findings, "symbol-allowlist", "cudaStreamCreate"));
  CHECK(mentions(findings, "symbol-allowlist", "cudaEventCreate"));
  CHECK(mentions(findings, "symbol-allowlist", "cudaEventRecord"));
}
#endif
