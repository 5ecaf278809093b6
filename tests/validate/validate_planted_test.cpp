// Tests of the validate label: `kgb validate`, run as a process exactly as the
// validate.* tests run it, must reject planted broken tasks with a message
// that names what is wrong. The plants are copies of real tasks (their C++
// references are registered by id in kgb) under a private KGB_TASKS_ROOT:
// a spec whose reference outputs are all zero, a bundled solution that
// computes the wrong thing, a task without a bundled solution, and a platform
// whose baseline runner is missing (a private KGB_BUILD_ROOT without it).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kgb/paths.h"
#include "kgb/process.h"

namespace {

namespace fs = std::filesystem;

struct Run {
  int exit_code = -1;
  std::string output;
};

// Sets an environment variable for the commands started in this scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// `kgb validate ARGS` on the tasks under `tasks_root`.
Run validate(const fs::path& tasks_root, std::vector<std::string> args) {
  ScopedEnv tasks("KGB_TASKS_ROOT", tasks_root.string());
  std::vector<std::string> argv{KGB_CLI_PATH, "validate", "--platform", "cpu-x86_64", "--no-time"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = kgb::run_command(argv, tasks_root, 300);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  REQUIRE_MESSAGE(r->status.exited, r->status.describe() << "\n" << r->output);
  return {r->status.code, r->output};
}

// A planted task root holding copies of real task folders.
struct PlantedRoot {
  kgb::TempDir dir{"kgb-planted-tasks"};

  fs::path plant(const std::string& id) {
    const fs::path to = dir.path() / id;
    fs::create_directories(to.parent_path());
    fs::copy(kgb::tasks_root() / id, to, fs::copy_options::recursive);
    return to;
  }
};

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE_MESSAGE(out.good(), "cannot write " << path.string());
}

// A copy of `from` made of symbolic links, except for `omitted` (relative):
// the build tree with one file missing.
void mirror_without(const fs::path& from, const fs::path& to, const fs::path& omitted) {
  fs::create_directories(to);
  const auto first = *omitted.begin();
  for (const auto& entry : fs::directory_iterator(from)) {
    const auto name = entry.path().filename();
    if (name != first) {
      fs::create_directory_symlink(entry.path(), to / name);
      continue;
    }
    const fs::path rest = omitted.lexically_relative(first);
    if (rest.empty() || rest == ".") continue;  // the omitted file itself
    mirror_without(entry.path(), to / name, rest);
  }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a planted copy of a sound task validates (the control for the plants below)") {
  PlantedRoot root;
  root.plant("blas/saxpy");
  const Run run = validate(root.dir.path(), {"--tasks", "blas/saxpy"});
  INFO(run.output);
  CHECK(run.exit_code == 0);
  CHECK(contains(run.output, "1 task(s) on cpu-x86_64: 1 passed, 0 failed"));
}

TEST_CASE("a task whose reference outputs are all zero fails as degenerate") {
  PlantedRoot root;
  const fs::path folder = root.plant("aten/mm");
  // Zero inputs: every product is zero, so no wrong kernel could be told apart.
  nlohmann::json spec = read_json(folder / "spec.json");
  for (auto& param : spec["params"])
    if (param["name"] == "self") param["dist"] = {{"kind", "uniform"}, {"low", "0"}, {"high", "0"}};
  write_text(folder / "spec.json", spec.dump(2));
  const Run run = validate(root.dir.path(), {"--tasks", "aten/mm", "--json"});
  INFO(run.output);
  CHECK(run.exit_code == 1);
  const auto report = nlohmann::json::parse(run.output);
  REQUIRE(report.size() == 1);
  CHECK(report[0]["task"] == "aten/mm");
  CHECK(report[0]["passed"] == false);
  bool degenerate = false;
  for (const auto& problem : report[0]["problems"])
    degenerate = degenerate || (contains(problem.get<std::string>(), "reference output 'out' is degenerate (max |x| = 0"));
  CHECK(degenerate);
}

TEST_CASE("a task whose bundled solution computes a wrong result fails") {
  PlantedRoot root;
  const fs::path folder = root.plant("blas/saxpy");
  write_text(folder / "solutions" / "cpu.cpp",
             "#include \"kgb_kernel.h\"\n"
             "// Wrong on purpose: y = alpha * x drops the old y.\n"
             "extern \"C\" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {\n"
             "  const float* xs = (const float*)x->data;\n"
             "  float* ys = (float*)y->data;\n"
             "  for (int64_t i = 0; i < x->sizes[0]; ++i) ys[i * y->strides[0]] = (float)alpha * xs[i * x->strides[0]];\n"
             "  return 0;\n"
             "}\n");
  const Run run = validate(root.dir.path(), {"--tasks", "blas/saxpy"});
  INFO(run.output);
  CHECK(run.exit_code == 1);
  CHECK(contains(run.output, "FAIL"));
  CHECK(contains(run.output, "bundled solution: wrong-result"));
  CHECK(contains(run.output, "1 task(s) on cpu-x86_64: 0 passed, 1 failed"));
}

TEST_CASE("a task without a bundled solution for the platform fails") {
  PlantedRoot root;
  const fs::path folder = root.plant("vllm/silu_and_mul");
  fs::remove(folder / "solutions" / "cpu.cpp");
  const Run run = validate(root.dir.path(), {"--tasks", "vllm/silu_and_mul"});
  INFO(run.output);
  CHECK(run.exit_code == 1);
  CHECK(contains(run.output, "no bundled solution cpu.cpp"));
}

TEST_CASE("a platform without a baseline for the task fails, even when nothing is timed") {
  PlantedRoot root;
  root.plant("blas/saxpy");
  kgb::TempDir build("kgb-planted-build");
  const fs::path baseline_runner = "backends/cpu/kgb-baseline-cpu";
  REQUIRE(fs::exists(kgb::build_root() / baseline_runner));
  mirror_without(kgb::build_root(), build.path(), baseline_runner);
  REQUIRE(fs::exists(build.path() / "backends/cpu"));
  REQUIRE_FALSE(fs::exists(build.path() / baseline_runner));
  ScopedEnv build_root("KGB_BUILD_ROOT", build.path().string());
  const Run run = validate(root.dir.path(), {"--tasks", "blas/saxpy"});
  INFO(run.output);
  CHECK(run.exit_code == 1);
  CHECK(contains(run.output, "no baseline on cpu-x86_64: baseline runner not built"));
}
