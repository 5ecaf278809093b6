// One candidate on one platform, end to end: lint (through a hook), compile,
// check in an isolated runner, time against the baseline, and the verdict.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kgb/case.h"
#include "kgb/platform.h"
#include "kgb/task.h"
#include "kgb/verdict.h"
#include "kgb/wire.h"

namespace kgb {

struct EvalOptions {
  bool lint = true;                 // run the lint hook when one is installed
  bool time = true;                 // time performance cases when the platform can
  bool baseline = true;             // time the baseline on the same inputs
  int seeds_per_case = 2;           // independent inputs per correctness case and dtype
  std::optional<uint64_t> seed;     // the secret run seed; drawn from the OS when empty
  double check_timeout_seconds = 20;   // per correctness job (one case, one seed)
  double time_budget_seconds = 1.0;    // timed loop cap per performance case
  double target_rse = 0.01;
  int rotating_sets = 2;            // input sets cycled through while timing
  std::string case_filter;          // glob on case names; empty = all
  std::filesystem::path keep_dir;   // copy the work folder here when set (debugging)
};

struct LintOutcome {
  std::vector<Diagnostic> diagnostics;
  std::vector<Finding> findings;
  bool parse_ok = true;
};

// Optional stages supplied by the tools layer (kgb_lint) without the core
// depending on it.
struct EvalHooks {
  std::function<LintOutcome(const std::string& source, const Task&, const Platform&)> lint;
  std::function<std::vector<Finding>(const std::filesystem::path& object, const Platform&)> symbol_check;
};

void set_default_eval_hooks(EvalHooks hooks);  // installed by executables that have the tools
const EvalHooks& default_eval_hooks();

Verdict evaluate(const Task& task, const Platform& platform, const std::string& source, const EvalOptions& options,
                 const EvalHooks& hooks = default_eval_hooks());

// The compile step alone (used by evaluate and by the agent's compile tool).
struct CompileOutput {
  bool ok = false;
  std::filesystem::path object, executable;
  std::vector<Diagnostic> diagnostics;
  std::vector<Finding> findings;  // symbol check
  std::string log;                // compiler output, capped
  double seconds = 0;
  std::string infra_error;        // toolchain missing or not startable
};
CompileOutput compile_candidate(const Task& task, const Platform& platform, const std::string& source,
                                const std::filesystem::path& work_dir, const EvalHooks& hooks);

// The generated adapter from the task's entry point to the runner's uniform call.
std::string generate_glue(const Task& task);

// The runner job for input sets of one case. The storage is borrowed, not
// copied: the instances must outlive the job.
wire::Job make_job(const Task& task, const std::vector<const CaseInstance*>& sets, wire::JobMode mode, uint8_t poison);

// Task validation (kgb validate): reference sanity on every case, then the
// bundled solution evaluated like a candidate.
struct TaskValidation {
  std::string task;
  bool passed = false;
  std::vector<std::string> problems;  // degenerate outputs, missing reference, ...
  std::optional<Verdict> solution;    // absent when the platform has no bundled solution
};
TaskValidation validate_task(const Task& task, const Platform& platform, const EvalOptions& options);

}  // namespace kgb
