// The oracle's mutations through real compilers: the compile error fails
// where it says, the wrong-result variant compiles and changes exactly what
// it claims (CPU: run and compared; CUDA and HIP: compiled when the toolchain
// is present, since nothing GPU runs here).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kgb/oracle/mutate.h"
#include "scripted_server.h"

using namespace kgb::oracle;
namespace fs = std::filesystem;

namespace {

const char* kCpuSolution = R"(// out = 2 * x over strided views, f32 / f64 / i32
#include <stdint.h>
#include "kgb_kernel.h"

template <class T>
static void twice(const kgb_tensor* x, kgb_tensor* out) {
  const int64_t rows = x->sizes[0], cols = x->sizes[1];
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      ((T*)out->data)[i * out->strides[0] + j * out->strides[1]] =
          2 * ((const T*)x->data)[i * x->strides[0] + j * x->strides[1]];
}

extern "C" int kgb_test_twice(const kgb_tensor* x, kgb_tensor* out, kgb_stream stream) {
  switch (x->dtype) {
    case KGB_F32: twice<float>(x, out); return 0;
    case KGB_F64: twice<double>(x, out); return 0;
    case KGB_I32: twice<int32_t>(x, out); return 0;
    default: return KGB_ERR_UNSUPPORTED;
  }
}
)";

// Calls the entry on a 2x3 input; the output has padded rows (stride 4) whose
// padding must stay untouched. Prints the 8 output slots.
const char* kDriver = R"(#include <stdio.h>
#include <stdint.h>
#include "kgb_kernel.h"
extern "C" int kgb_test_twice(const kgb_tensor* x, kgb_tensor* out, kgb_stream stream);

template <class T>
static void run(int dtype) {
  T in[6] = {1, 2, 3, 4, 5, 6};
  T out[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  kgb_tensor x = {in, dtype, 2, {2, 3}, {3, 1}};
  kgb_tensor o = {out, dtype, 2, {2, 3}, {4, 1}};
  int status = kgb_test_twice(&x, &o, 0);
  printf("status %d:", status);
  for (int i = 0; i < 8; ++i) printf(" %g", (double)out[i]);
  printf("\n");
}

int main() {
  run<float>(KGB_F32);
  run<double>(KGB_F64);
  run<int32_t>(KGB_I32);
  return 0;
}
)";

const char* kCudaSolution = R"(// out = 2 * x, contiguous f32
#include "kgb_kernel.h"

__global__ void twice_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * x[i];
}

extern "C" int kgb_test_twice(const kgb_tensor* x, kgb_tensor* out, kgb_stream stream) {
  const int64_t n = kgb_numel(x);
  if (n == 0) return 0;
  twice_kernel<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((const float*)x->data, (float*)out->data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : KGB_ERR_INVALID;
}
)";

KernelTarget target_for(const std::string& backend, const std::string& source) {
  KernelTarget t;
  t.task_id = "test/twice";
  t.platform = backend;
  t.backend = backend;
  t.source = source;
  t.entry = "kgb_test_twice";
  t.entry_declaration = "extern \"C\" int kgb_test_twice(const kgb_tensor* x, kgb_tensor* out, kgb_stream stream);";
  t.outputs = {"out"};
  return t;
}

struct Workdir {
  Workdir() : path(kgb::test::temp_directory("kgb-oracle-compile")) {}
  ~Workdir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string file = path + "/" + name;
    std::ofstream(file) << text;
    return file;
  }
  std::string path;
};

struct Run {
  int status;
  std::string output;
};

Run shell(const std::string& command, const std::string& log) {
  const int status = std::system((command + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return {status, text.str()};
}

std::string abi_dir() { return KGB_TEST_ABI_DIR; }

bool have(const std::string& program) {
  return std::system(("command -v " + program + " > /dev/null 2>&1").c_str()) == 0;
}

}  // namespace

TEST_CASE("mutations compiled and run on the CPU") {
  Workdir dir;
  const std::string driver = dir.write("driver.cpp", kDriver);
  auto build_and_run = [&](const std::string& name, const std::string& source) {
    const std::string file = dir.write(name + ".cpp", source);
    const std::string exe = dir.path + "/" + name;
    Run built = shell("c++ -std=c++17 -I" + abi_dir() + " " + file + " " + driver + " -o " + exe, dir.path + "/" + name + ".log");
    if (built.status != 0) return built;
    return shell(exe, dir.path + "/" + name + ".out");
  };

  Run original = build_and_run("original", kCpuSolution);
  REQUIRE_MESSAGE(original.status == 0, original.output);
  CHECK(original.output == "status 0: 2 4 6 -1 8 10 12 -1\nstatus 0: 2 4 6 -1 8 10 12 -1\nstatus 0: 2 4 6 -1 8 10 12 -1\n");

  auto wrong = inject_wrong_result(target_for("cpu", kCpuSolution));
  REQUIRE(wrong);
  Run perturbed = build_and_run("wrong", wrong->source);
  REQUIRE_MESSAGE(perturbed.status == 0, perturbed.output);
  // Only the first element of the view changes: 2 -> 2 + 1 + 0.5 * 2 for floats, 2 + 1 for integers.
  CHECK(perturbed.output == "status 0: 4 4 6 -1 8 10 12 -1\nstatus 0: 4 4 6 -1 8 10 12 -1\nstatus 0: 3 4 6 -1 8 10 12 -1\n");

  KernelTarget statistical = target_for("cpu", kCpuSolution);
  statistical.statistical = true;
  Run constant = build_and_run("constant", inject_wrong_result(statistical)->source);
  REQUIRE_MESSAGE(constant.status == 0, constant.output);
  CHECK(constant.output == "status 0: 7 7 7 -1 7 7 7 -1\nstatus 0: 7 7 7 -1 7 7 7 -1\nstatus 0: 7 7 7 -1 7 7 7 -1\n");

  Mutation broken = inject_compile_error(kCpuSolution, "kgb_test_twice");
  Run failed = build_and_run("broken", broken.source);
  CHECK(failed.status != 0);
  CHECK(failed.output.find("broken.cpp:" + std::to_string(broken.line) + ":") != std::string::npos);
  CHECK(failed.output.find("kgb_validate_arguments") != std::string::npos);
}

TEST_CASE("CUDA mutations compile with nvcc (when installed)") {
  std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc)) nvcc = "nvcc";
  if (!have(nvcc)) {
    MESSAGE("nvcc not found: CUDA mutations not compiled");
    return;
  }
  Workdir dir;
  auto compile = [&](const std::string& name, const std::string& source) {
    const std::string file = dir.write(name + ".cu", source);
    return shell(nvcc + " -arch=sm_90 -I" + abi_dir() + " -c " + file + " -o " + dir.path + "/" + name + ".o",
                 dir.path + "/" + name + ".log");
  };
  Run original = compile("original", kCudaSolution);
  REQUIRE_MESSAGE(original.status == 0, original.output);
  auto wrong = inject_wrong_result(target_for("cuda", kCudaSolution));
  REQUIRE(wrong);
  Run perturbed = compile("wrong", wrong->source);
  CHECK_MESSAGE(perturbed.status == 0, perturbed.output);
  Mutation broken = inject_compile_error(kCudaSolution, "kgb_test_twice");
  Run failed = compile("broken", broken.source);
  CHECK(failed.status != 0);
  CHECK(failed.output.find("broken.cu(" + std::to_string(broken.line) + ")") != std::string::npos);
}

TEST_CASE("HIP mutations compile with hipcc (when installed)") {
  if (!have("hipcc")) {
    MESSAGE("hipcc not found: HIP mutations not compiled");
    return;
  }
  std::string hip_solution = kCudaSolution;
  hip_solution.replace(hip_solution.find("#include \"kgb_kernel.h\""), 23, "#include <hip/hip_runtime.h>\n#include \"kgb_kernel.h\"");
  for (const char* from : {"cudaStream_t", "cudaGetLastError", "cudaSuccess"}) {
    const std::string to = std::string("hip") + (from + 4);
    for (auto pos = hip_solution.find(from); pos != std::string::npos; pos = hip_solution.find(from))
      hip_solution.replace(pos, std::string(from).size(), to);
  }
  Workdir dir;
  auto compile = [&](const std::string& name, const std::string& source) {
    const std::string file = dir.write(name + ".hip", source);
    return shell("hipcc --offload-arch=gfx90a -I" + abi_dir() + " -c " + file + " -o " + dir.path + "/" + name + ".o",
                 dir.path + "/" + name + ".log");
  };
  Run original = compile("original", hip_solution);
  if (original.status != 0) {
    MESSAGE("hipcc cannot compile here: " << original.output.substr(0, 300));
    return;
  }
  auto wrong = inject_wrong_result(target_for("hip", hip_solution));
  REQUIRE(wrong);
  Run perturbed = compile("wrong", wrong->source);
  CHECK_MESSAGE(perturbed.status == 0, perturbed.output);
  Mutation broken = inject_compile_error(hip_solution, "kgb_test_twice");
  Run failed = compile("broken", broken.source);
  CHECK(failed.status != 0);
  CHECK(failed.output.find("broken.hip:" + std::to_string(broken.line) + ":") != std::string::npos);
}
