// kgb profile: the profiling and sanitizing tool of the evaluation half
// (DESIGN 3.4/3.5 L3, issue 22), one interface and one result shape for every
// platform.
//
// profile_candidate() compiles a candidate like evaluate() does (with the
// extra flags the platform's "profile" section gives), records runner
// requests for the cases it needs (a serialized Hello/Job/Bye stream) and
// replays them in the candidate executable (`candidate --replay IN OUT`)
// under the platform's tools, inside the same isolation as the runner (own
// namespaces, unprivileged user, rlimits, scrubbed environment):
//
//   backend  performance tools                       sanitizer (--sanitize)
//   cpu      perf stat (hardware counters, only       AddressSanitizer + UBSan build linked with
//            inside timed calls) where the kernel     the sanitizer runner library, on the
//            allows them; cachegrind on a reduced     correctness cases (under qemu-user for the
//            case with per-line attribution of        emulated CPUs where it works there)
//            misses in the candidate's file
//   opencl   per-enqueue profiling events (queued/    oclgrind (out-of-bounds accesses, races,
//            submit/start/end), work sizes, share     API errors) on the correctness cases, the
//            per kernel, kernel attributes, build     runner's buffers exactly the tensors'
//            options and log                          sizes (KGB_OPENCL_EXACT_BUFFERS)
//   cuda     Nsight Compute metrics per launch        compute-sanitizer memcheck
//   hip      the compiler's resource usage per        none (compile-only platform)
//            kernel (registers, LDS, scratch,
//            occupancy): compile only
//
// What ran, what was not available and why are in the result (`tools`,
// `notes`). The result carries a short model-oriented `summary` (what limits
// the kernel, in two or three lines with numbers) that the agent's feedback
// uses, and the full data for `--json` and the run store.
//
// The parsers are separate functions (profile_parsers.h) so that recorded
// tool output can be tested on hosts without the tool or the device.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kgb/platform.h"
#include "kgb/result.h"
#include "kgb/task.h"
#include "kgb/verdict.h"

namespace kgb {
struct CaseInstance;  // kgb/case.h
}

namespace kgb::profile {

// One kernel: CUDA, one launch seen by Nsight Compute; OpenCL, every enqueue
// of one kernel name (times summed); HIP, one kernel of the compiler's report.
struct KernelProfile {
  int64_t id = 0;                  // ncu's launch number; OpenCL/HIP: order of appearance
  std::string name;
  std::string grid, block;         // CUDA "(256, 1, 1)"; OpenCL global and local sizes "[1048576]"
  int64_t launches = 1;
  double duration_us = 0;          // device time, summed over launches
  double share = 0;                // of the candidate's total device time, in [0, 1]
  double dram_throughput_pct = 0;  // CUDA: of peak sustained, elapsed
  double sm_throughput_pct = 0;
  double achieved_occupancy_pct = 0;
  // CUDA stall reasons, largest first: (reason, average warps stalled per issued instruction).
  std::vector<std::pair<std::string, double>> top_stalls;
  std::map<std::string, double> metrics;      // every numeric metric, in the unit printed next to it
  std::map<std::string, std::string> units;   // metric -> unit as printed ("nsecond", "%", ...)
  // OpenCL kernel attributes and HIP resource usage: "private_mem_bytes",
  // "local_mem_bytes", "preferred_work_group_multiple", "max_work_group_size",
  // "sgpr", "vgpr", "agpr", "lds_bytes", "scratch_bytes", "occupancy_waves", ...
  std::map<std::string, double> attributes;
  std::string build_log;           // OpenCL: the program's build log (warnings), when not empty
};

// One OpenCL enqueue as the profiling events saw it (nanoseconds, device clock).
struct Enqueue {
  int64_t job = 0;                     // the replayed call it belongs to
  std::string kernel;
  std::vector<int64_t> global, local;  // local empty: the runtime chose
  uint64_t queued = 0, submit = 0, start = 0, end = 0;
  double duration_us() const { return end > start ? static_cast<double>(end - start) / 1000.0 : 0.0; }
};

// Cost attributed to one line of the candidate's source (cachegrind): event
// counts by cachegrind's names (Ir, Dr, Dw, D1mr, D1mw, DLmr, DLmw, I1mr, ILmr).
struct LineCost {
  std::string file;  // "candidate.cpp"
  int line = 0;
  std::map<std::string, int64_t> events;
  std::string excerpt;  // the source line, trimmed
  int64_t misses() const;  // D1 + LL data misses
};

// Where a timed case sits on the roofline (from the evaluation's timings).
struct RooflineEntry {
  std::string case_name, dtype;
  double median_us = 0, baseline_us = 0, speedup = 0;
  double achieved_gflops = 0, achieved_gbs = 0, compute_fraction = 0, bandwidth_fraction = 0;
  std::string bound;
};

struct ProfileOptions {
  std::string case_filter;          // glob on case names; default: the first performance case
  bool counters = true;             // run the platform's performance tools (ncu, perf, cachegrind, OpenCL events, ...)
  bool sanitize = false;            // run the platform's sanitizer on the correctness cases
  uint64_t seed = 1;                // inputs are not secret here: profiling is not scoring
  double timeout_seconds = 600;     // per tool run
  bool isolate = true;              // run the tools like the runner: own namespaces, unprivileged
  std::string ncu_program = "ncu";
  std::string sanitizer_program = "compute-sanitizer";
  std::string perf_program = "perf";
  std::string valgrind_program = "valgrind";
  std::string oclgrind_program = "oclgrind";
  // perf events counted inside the timed calls; empty: the hardware set
  // (cycles, instructions, cache and branch events) when the kernel allows it.
  std::vector<std::string> perf_events;
  int64_t reduced_case_bytes = 16ll << 20;  // cachegrind: performance case shrunk to at most this many tensor bytes
  std::filesystem::path keep_dir;   // copy the work folder here when set
};

struct ProfileResult {
  std::string task, platform, backend;
  std::string profiled_case;        // "case/dtype" the performance tools ran on
  std::string reduced_case;         // cachegrind: the reduced case ("n_16M/f32 reduced to n=1048576")
  bool compiled = false;
  std::vector<Diagnostic> diagnostics;  // compiler output when the build failed
  std::vector<std::string> tools;   // what ran: "ncu", "perf stat", "cachegrind", "opencl events", "asan+ubsan", ...
  std::vector<std::string> notes;   // what did not run here and why

  std::vector<KernelProfile> kernels;
  double total_duration_us = 0;
  std::vector<Enqueue> enqueues;    // OpenCL: every enqueue of the profiled calls
  std::map<std::string, double> counters;  // perf events / cachegrind totals over the candidate's file / rates
  std::vector<LineCost> hot_lines;  // cachegrind: lines of the candidate with the most data misses, most first
  std::vector<RooflineEntry> roofline;  // set by attach_timings()

  std::string sanitizer;            // the sanitizer that ran ("asan+ubsan", "oclgrind", "compute-sanitizer memcheck")
  std::vector<Finding> findings;    // sanitizer findings, first error first
  int64_t sanitizer_errors = -1;    // -1: not run
  std::string sanitizer_case;       // the case that was running at the first error
  std::vector<std::string> summary; // two or three lines for a model: what limits the kernel, with numbers
  std::vector<std::string> warnings;
  std::string error;                // tool missing, replay failed ...
  std::map<std::string, std::string> logs;  // tool -> capped raw output

  bool ok() const { return compiled && error.empty() && findings.empty(); }
};

ProfileResult profile_candidate(const Task& task, const Platform& platform, const std::string& source,
                                const ProfileOptions& options);

// Adds the roofline placement of a timed evaluation of the same candidate and
// rewrites the summary with it.
void attach_timings(ProfileResult& result, const Verdict& verdict);

// The model-oriented lines from what the result holds (profile_candidate and
// attach_timings call it).
std::vector<std::string> summarize(const ProfileResult& result);

void to_json(nlohmann::json& j, const KernelProfile& k);
void to_json(nlohmann::json& j, const ProfileResult& r);

// Which tools a platform profiles with, from its descriptor's "profile"
// section (see docs/profiling.md); an Error names the file and field.
struct ProfileSettings {
  std::vector<std::string> tools;           // "perf", "cachegrind", "opencl-events", "ncu", "hip-resource-usage"
  std::vector<std::string> debug_flags;     // added after the compiler for profile builds ("-g")
  std::vector<std::string> cachegrind_flags;  // more compile flags for the cachegrind build
  struct Sanitizer {
    std::string tool;                       // "asan" | "oclgrind" | "compute-sanitizer"
    std::vector<std::string> compile_flags, link_flags;
    std::string runner_library;             // linked instead of the platform's runner
    std::map<std::string, std::string> environment;
  };
  std::optional<Sanitizer> sanitizer;
  std::string sanitizer_note;               // why there is none
};
Result<ProfileSettings> profile_settings(const Platform& platform);

// Calibration: runs platform.calibrate (JSON on stdout with a "peak" object),
// checks it, and writes calibration_file(platform.name). Returns what was
// written. Emulated and compile-only platforms have nothing to calibrate.
Result<nlohmann::json> run_calibration(const Platform& platform, double timeout_seconds = 600);

// The serialized request stream that `candidate --replay` reads: Hello, one
// check Job per instance (outputs poisoned with `poison`), Bye.
std::vector<std::byte> replay_requests(const Task& task, const std::vector<CaseInstance>& instances, uint8_t poison = 0xFF);

// Decodes a replay's response stream (Ready, then one Result per job).
struct ReplayResponses {
  bool ready = false, resolved = false;
  std::string device;
  std::vector<std::string> errors;  // runner-side errors and non-zero kernel returns, per job
  size_t results = 0;
  size_t timed_calls = 0;           // timing jobs: calls timed in all
};
ReplayResponses read_replay_responses(const std::filesystem::path& file);

}  // namespace kgb::profile

#include "kgb/profile_parsers.h"
