// Runs the agent loop with the policies of this executable: the built-in ones
// plus every policy compiled into it (here policies/temperature_ladder.cpp).
//
//   kgb-example-run [--config FILE] [--policy NAME] [--tasks GLOB] [--store FILE]
//   kgb-example-run --self-test      the check run by ctest
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "kgb/agent/policy.h"
#include "kgb/agent/runner.h"
#include "kgb/store/run_store.h"

using namespace kgb;

namespace {

// The ladder against the oracle with one compile error and one wrong result
// injected: rung 0 fails to compile, rung 1 computes a wrong result, rung 2
// passes, each at its own temperature, and the hints carry the errors.
int self_test() {
  std::string dir = (std::filesystem::temp_directory_path() / "kgb-example-XXXXXX").string();
  if (!mkdtemp(dir.data())) return 1;
  agent::RunOptions o;
  o.handle_signals = false;
  o.config.store = dir + "/runs.db";
  o.config.policy = "temperature-ladder";
  o.config.tasks = "blas/saxpy";
  o.config.provider.name = "oracle";
  o.config.oracle.compile_error_attempts = 1;
  o.config.oracle.wrong_result_attempts = 1;
  o.config.evaluation.lint = false;
  o.config.evaluation.time = false;
  o.config.evaluation.seeds_per_case = 1;
  auto result = agent::execute_run(o);
  if (!result) {
    std::fprintf(stderr, "self-test: the run did not start: %s\n", result.error().message.c_str());
    return 1;
  }
  auto db = store::RunStore::open(o.config.store);
  if (!db) return 1;
  const auto attempts_read = (*db)->attempts(result->run_id);
  if (!attempts_read) {
    std::fprintf(stderr, "self-test: %s\n", attempts_read.error().message.c_str());
    return 1;
  }
  const auto& attempts = *attempts_read;
  if (attempts.size() != 1) return 1;
  const auto its_read = (*db)->iterations(attempts[0].id);
  if (!its_read) {
    std::fprintf(stderr, "self-test: %s\n", its_read.error().message.c_str());
    return 1;
  }
  const auto& its = *its_read;
  const char* expected[] = {"compile-error", "wrong-result", "passed"};
  const double temperatures[] = {0.0, 0.4, 0.8};
  bool ok = attempts[0].status == "solved" && attempts[0].stop_reason == "correct" && its.size() == 3;
  for (size_t i = 0; ok && i < its.size(); ++i) {
    ok = its[i].outcome == expected[i] && its[i].detail["temperature"].get<double>() == temperatures[i];
    const auto call_read = (*db)->find_llm_call(attempts[0].id, static_cast<int>(i), 0);
    const auto* call = call_read && *call_read ? &**call_read : nullptr;
    ok = ok && call && call->request["temperature"].get<double>() == temperatures[i];
    // From the second rung on, the prompt names the previous error.
    if (ok && i > 0) ok = call->request["messages"][0]["content"].get<std::string>().find("A previous attempt failed") != std::string::npos;
  }
  std::printf("self-test: %s (%zu iterations, status %s)\n", ok ? "passed" : "FAILED", its.size(), attempts[0].status.c_str());
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  agent::RunOptions o;
  o.config.policy = "temperature-ladder";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--self-test") return self_test();
    if (a == "--config" && next) {
      auto c = agent::load_config_file(next);
      if (!c) {
        std::fprintf(stderr, "%s\n", c.error().message.c_str());
        return 2;
      }
      o.config = std::move(c.value());
      ++i;
    } else if (a == "--policy" && next) {
      o.config.policy = next, ++i;
    } else if (a == "--tasks" && next) {
      o.config.tasks = next, ++i;
    } else if (a == "--store" && next) {
      o.config.store = next, ++i;
    } else {
      std::fprintf(stderr, "usage: %s [--config FILE] [--policy NAME] [--tasks GLOB] [--store FILE] | --self-test\n", argv[0]);
      for (const auto* p : agent::PolicyRegistry::global().list()) std::fprintf(stderr, "  policy %s: %s\n", p->name.c_str(), p->description.c_str());
      return 2;
    }
  }
  auto result = agent::execute_run(o);
  if (!result) {
    std::fprintf(stderr, "%s\n", result.error().message.c_str());
    return 2;
  }
  std::printf("%s\n", result->to_json().dump(2).c_str());
  return result->status == "finished" ? 0 : 1;
}
