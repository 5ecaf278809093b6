// One candidate on one platform, end to end: lint (through a hook), compile,
// check in an isolated runner, time against the baseline, and the verdict.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kgb/byte_bounded_cache.h"
#include "kgb/case.h"
#include "kgb/platform.h"
#include "kgb/task.h"
#include "kgb/verdict.h"
#include "kgb/wire.h"

namespace kgb {

// One case built and answered: its inputs and the reference's outputs. The
// instance points into `entry`, its own copy of the task entry, so a cached
// case outlives the Task it was made from.
struct PreparedCase {
  std::shared_ptr<const Task> entry;
  CaseInstance instance;
  CaseOutputs expected;
  uint64_t bytes() const;
};

// The per-run cache of performance-case references: keyed by (entry, spec
// hash, case, dtypes, input seed), in memory, least recently used out first
// beyond `max_bytes`. Seeds are secret per run, so it never outlives a run.
class ReferenceCache : public ByteBoundedCache<PreparedCase> {
 public:
  explicit ReferenceCache(uint64_t max_bytes = 4ull << 30) : ByteBoundedCache(max_bytes) {}
  using ByteBoundedCache::insert;
  void insert(const std::string& key, std::shared_ptr<const PreparedCase> value) {
    const uint64_t bytes = value->bytes();
    insert(key, std::move(value), bytes);
  }
};

// Builds case `case_index` of the entry (performance or correctness) for a
// binding and seed and runs its reference; through the cache when one is given.
Result<std::shared_ptr<const PreparedCase>> prepare_case(const Task& entry, size_t case_index, bool performance,
                                                         const DTypeBinding& dtypes, uint64_t seed, ReferenceCache* cache);

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
  // Candidate and baseline are timed in this many interleaved pairs of blocks
  // (each block a 1/timing_pairs share of time_budget_seconds); 1 times each
  // runner once, one after the other.
  int timing_pairs = 6;
  // A case whose speedup interval is wider than this share of the speedup is
  // flagged unstable (CaseTiming::speedup_unstable).
  double unstable_interval = 0.10;
  // The longest wait for the device's cross-process timing lock
  // (kgb/timing_lock.h) before timing without it; 0 = no lock.
  double timing_lock_wait_seconds = 1800;
  std::string case_filter;          // glob on case names; empty = all
  std::filesystem::path keep_dir;   // copy the work folder here when set (debugging)
  // References of performance cases shared by the evaluations of one run
  // (the agent loop makes one per run); none: built per evaluation.
  std::shared_ptr<ReferenceCache> reference_cache;
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
  bool cached = false;            // the same build earlier in this process (kgb/compile_cache.h)
};
CompileOutput compile_candidate(const Task& task, const Platform& platform, const std::string& source,
                                const std::filesystem::path& work_dir, const EvalHooks& hooks);
// The compile step's command, run in its working folder where the candidate is
// saved as candidate_source_name(): the platform's template with every
// placeholder filled. Lint runs the same compiler with the same flags to see
// which lines it compiles (unlinted-code).
std::string candidate_source_name(const Platform& platform);
std::vector<std::string> candidate_compile_argv(const Platform& platform);

// The generated adapter from the task's entry points (primary and overloads)
// to the runner's uniform call.
std::string generate_glue(const Task& task);

// What a call produced, rebuilt from a runner's result for input set `set`
// (outputs moved out of the result when `move`).
CaseOutputs case_outputs_from(const Task& entry, const CaseInstance& inst, wire::JobResult& result, size_t set, bool move);

// What the parent says to a runner first: the task and its entry signatures.
wire::Hello make_hello(const Task& task);

// The runner job for input sets of one case of an entry. The storage is
// borrowed, not copied: the instances must outlive the job.
wire::Job make_job(const Task& entry, const std::vector<const CaseInstance*>& sets, wire::JobMode mode, uint8_t poison);

// Task validation (kgb validate): reference sanity on every case, then the
// bundled solution evaluated like a candidate.
struct TaskValidation {
  std::string task;
  bool passed = false;
  std::vector<std::string> problems;  // degenerate outputs, missing reference, ...
  std::optional<Verdict> solution;    // absent when the platform has no bundled solution
  // What the task still lacks elsewhere (other platforms' solutions and
  // baselines, the CPU oracle of the cross-check): listed, not failing here.
  std::vector<std::string> gaps;
};
TaskValidation validate_task(const Task& task, const Platform& platform, const EvalOptions& options);
// The files a complete task has beyond its spec and reference: a solution per
// backend, a baseline per backend where the generic ATen call does not cover
// it, and a CPU oracle for the cross-check. Names what is missing.
std::vector<std::string> task_gaps(const Task& task);

}  // namespace kgb
