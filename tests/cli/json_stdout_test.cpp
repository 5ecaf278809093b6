// `--json` contract: whatever a command does — succeed, fail on bad input,
// run an agent loop with progress — its standard output is one JSON document
// and nothing else, so `kgb X --json | jq` always works. Every command that
// takes --json is run here as a real process, on a success path and on a
// failure path.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kgb/platform.h"
#include "kgb/process.h"

using namespace kgb;
namespace fs = std::filesystem;

namespace {

struct Ran {
  ExitStatus status;
  std::string out, err;
};

Ran run_kgb(const std::vector<std::string>& args, double timeout_seconds = 300) {
  SpawnOptions o;
  o.argv = {KGB_CLI_PATH};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.working_dir = fs::temp_directory_path();
  o.capture_limit = 64u << 20;
  auto child = ChildProcess::spawn(o);
  REQUIRE_MESSAGE(child.ok(), (child.ok() ? "" : child.error().message));
  Ran r;
  r.status = (*child)->wait(deadline_after(timeout_seconds));
  r.out = (*child)->stdout_text();
  r.err = (*child)->stderr_text();
  return r;
}

// Parses the whole of stdout as one document: trailing text, a second
// document or a progress line before it all fail the parse.
nlohmann::json one_document(const Ran& r, const std::string& what) {
  INFO(what << " exited: " << r.status.describe() << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.status.exited);
  auto j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  REQUIRE_MESSAGE(!j.is_discarded(), "stdout is not exactly one JSON document");
  return j;
}

std::string temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "kgb-cli-json-XXXXXX").string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

const std::string kSaxpySolution = std::string(KGB_SOURCE_DIR) + "/benchmark/tasks/blas/saxpy/solutions/cpu.cpp";

}  // namespace

TEST_CASE("--json: listing commands print one document") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"tasks", "--json"}, {"platforms", "--json"}}) {
    const Ran r = run_kgb(args);
    const auto j = one_document(r, args.front());
    CHECK(r.status.code == 0);
    CHECK(!j.empty());
  }
}

TEST_CASE("--json: eval and validate print one document, passing or failing") {
  const std::string dir = temp_dir();
  SUBCASE("eval of the bundled solution") {
    const Ran r = run_kgb({"eval", "blas/saxpy", "--platform", "cpu-x86_64", "--kernel", kSaxpySolution, "--json",
                           "--time-budget", "0.05", "--timing-pairs", "1", "--no-lint"});
    const auto j = one_document(r, "eval");
    CHECK(r.status.code == 0);
    CHECK(j.value("outcome", "") == "passed");
  }
  SUBCASE("eval of a kernel that does not compile") {
    const std::string bad = dir + "/bad.cpp";
    std::ofstream(bad) << "this is not C++\n";
    const Ran r = run_kgb({"eval", "blas/saxpy", "--platform", "cpu-x86_64", "--kernel", bad, "--json", "--no-lint"});
    const auto j = one_document(r, "eval (compile error)");
    CHECK(r.status.code != 0);
    CHECK(j.value("outcome", "") == "compile-error");
  }
  SUBCASE("eval of a missing file and of an unknown task") {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"eval", "blas/saxpy", "--platform", "cpu-x86_64", "--kernel", dir + "/missing.cpp", "--json"},
             {"eval", "blas/no_such_task", "--platform", "cpu-x86_64", "--kernel", kSaxpySolution, "--json"},
             {"eval", "blas/saxpy", "--platform", "no-such-platform", "--kernel", kSaxpySolution, "--json"}}) {
      const Ran r = run_kgb(args);
      const auto j = one_document(r, args[1] + " " + args[3] + " " + args[5]);
      CHECK(r.status.code != 0);
      CHECK(j.contains("error"));
    }
  }
  SUBCASE("validate") {
    const Ran r = run_kgb({"validate", "--tasks", "blas/saxpy", "--platform", "cpu-x86_64", "--json", "--no-time"});
    one_document(r, "validate");
    CHECK(r.status.code == 0);
    const Ran none = run_kgb({"validate", "--tasks", "nothing/*", "--platform", "cpu-x86_64", "--json"});
    one_document(none, "validate (no task)");
  }
  fs::remove_all(dir);
}

#if KGB_CLI_HAS_LINT
TEST_CASE("--json: lint commands print one document") {
  const Ran rules = run_kgb({"lint-rules", "--json"});
  one_document(rules, "lint-rules");
  const Ran lint = run_kgb({"lint", kSaxpySolution, "--task", "blas/saxpy", "--platform", "cpu-x86_64", "--json"});
  one_document(lint, "lint");
  CHECK(lint.status.code == 0);
  const Ran missing = run_kgb({"lint", "/nonexistent/file.cpp", "--platform", "cpu-x86_64", "--json"});
  one_document(missing, "lint (missing file)");
  CHECK(missing.status.code != 0);
}
#endif

#if KGB_CLI_HAS_LOOP
TEST_CASE("--json: run, runs and chat print one document; progress goes to stderr") {
  const std::string dir = temp_dir();
  const std::string store = dir + "/runs.db";
  const std::string config = dir + "/experiment.toml";
  std::ofstream(config) << "[evaluation]\ncases = \"*1*\"\ntime_budget_seconds = 0.05\ntiming_pairs = 1\n";
  const Ran r = run_kgb({"run", "--config", config, "--policy", "refine", "--provider", "oracle", "--platform",
                         "cpu-x86_64", "--tasks", "vllm/silu_and_mul", "--store", store, "--run-id", "json", "--seed",
                         "3", "--jobs", "1", "--json"},
                        600);
  const auto summary = one_document(r, "run");
  CHECK(r.status.code == 0);
  CHECK(summary.value("run_id", "") == "json");

  const Ran runs = run_kgb({"runs", "--store", store, "--json"});
  one_document(runs, "runs");
  const Ran no_store = run_kgb({"runs", "--store", dir + "/missing/dir/x.db", "--json"});
  one_document(no_store, "runs (bad store)");

  // A run whose configuration is wrong fails as one document too.
  const Ran bad = run_kgb({"run", "--policy", "no-such-policy", "--provider", "oracle", "--store", store, "--json"});
  const auto failed = one_document(bad, "run (unknown policy)");
  CHECK(bad.status.code != 0);
  CHECK(failed.contains("error"));

  // chat against a server that is not there: a provider error, as JSON.
  const Ran chat = run_kgb({"chat", "--provider", "vllm", "--base-url", "http://127.0.0.1:9/v1", "--retries", "0",
                            "--timeout", "5", "--json", "hello"});
  one_document(chat, "chat (no server)");
  CHECK(chat.status.code != 0);
  fs::remove_all(dir);
}
#endif

TEST_CASE("--json: portability, calibrate and profile print one document where they cannot run") {
  const Ran port = run_kgb({"portability", "--platforms", "cpu-x86_64", "--tasks", "blas/saxpy", "--no-time", "--json"});
  one_document(port, "portability");
  CHECK(port.status.code == 0);
  const Ran bad_port = run_kgb({"portability", "--platforms", "no-such-platform", "--tasks", "blas/saxpy", "--json"});
  one_document(bad_port, "portability (unknown platform)");
  const Ran profile = run_kgb({"profile", "blas/saxpy", "--platform", "no-such-platform", "--kernel", kSaxpySolution,
                               "--json"});
  one_document(profile, "profile (unknown platform)");
  CHECK(profile.status.code != 0);
  const Ran calibrate = run_kgb({"calibrate", "--platform", "no-such-platform", "--json"});
  one_document(calibrate, "calibrate (unknown platform)");
  CHECK(calibrate.status.code != 0);
}

#if KGB_CLI_HAS_CUDA
// A host without the platform's device still lints and compiles a candidate
// (as a compile-only platform does); the verdict says that nothing ran, and
// a candidate that does not compile still fails.
TEST_CASE("eval on a CUDA platform without a device compiles and says why it stopped") {
  auto platform = load_platform("cuda-sm90");
  REQUIRE(platform.ok());
  if (check_availability(*platform).available) {
    MESSAGE("skipped: this host has a usable CUDA device (the eval runs in full)");
    return;
  }
  const std::string dir = temp_dir();
  const std::string good = std::string(KGB_SOURCE_DIR) + "/benchmark/tasks/aten/add/solutions/cuda.cu";
  const Ran ok = run_kgb({"eval", "aten/add", "--platform", "cuda-sm90", "--kernel", good, "--json"});
  const auto j = one_document(ok, "eval of a good CUDA candidate");
  CHECK(ok.status.code == 0);
  CHECK(j.value("outcome", "") == "passed");
  CHECK(j.value("summary", "").rfind("compiled; not run: platform cuda-sm90 is not available here", 0) == 0);
  CHECK(ok.err.find("compiling only") != std::string::npos);

  const std::string bad = dir + "/broken.cu";
  std::ofstream(bad) << "#include \"kgb_kernel.h\"\n__global__ void k(float* x) { x[0] = undeclared_name; }\n";
  const Ran broken = run_kgb({"eval", "aten/add", "--platform", "cuda-sm90", "--kernel", bad, "--json", "--no-lint"});
  const auto b = one_document(broken, "eval of a CUDA candidate that does not compile");
  CHECK(broken.status.code != 0);
  CHECK(b.value("outcome", "") == "compile-error");
  fs::remove_all(dir);
}
#endif
