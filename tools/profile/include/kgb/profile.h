// kgb profile: the profiling tool of the evaluation half (DESIGN 3.4/3.5 L3).
//
// profile_candidate() compiles a candidate like evaluate() does, records the
// runner requests for one case (a serialized Hello/Job/Bye stream) and
// replays them in the candidate executable (`candidate --replay IN OUT`)
// under Nsight Compute, which starts the program itself:
//   ncu --csv --print-units base --clock-control none --metrics <small set>
// The CSV is parsed into one KernelProfile per kernel launch: duration, DRAM
// and SM throughput (% of peak), achieved occupancy and the largest stall
// reasons. With `sanitize`, the correctness cases are replayed under
// compute-sanitizer memcheck and every reported error becomes a verdict
// finding (rule `sanitizer-memcheck`).
//
// run_calibration() runs a platform's calibration microbenchmark and stores
// its measured peak figures where load_platform() overlays them.
//
// The parsers are separate functions so that recorded tool output can be
// tested on hosts without a GPU.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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

// The metrics asked of ncu: small, available on Volta and newer, and enough
// to say whether a kernel is bound by memory, by issue, or by latency.
const std::vector<std::string>& ncu_metrics();

struct KernelProfile {
  int64_t id = 0;                  // ncu's launch number
  std::string name;                // as ncu prints it (demangled)
  std::string grid, block;         // "(256, 1, 1)"
  double duration_us = 0;          // gpu__time_duration.sum
  double dram_throughput_pct = 0;  // of peak sustained, elapsed
  double sm_throughput_pct = 0;
  double achieved_occupancy_pct = 0;
  // Stall reasons, largest first: (reason, average warps stalled per issued instruction).
  std::vector<std::pair<std::string, double>> top_stalls;
  std::map<std::string, double> metrics;      // every numeric metric, in the unit printed next to it
  std::map<std::string, std::string> units;   // metric -> unit as printed ("nsecond", "%", ...)
};

struct NcuReport {
  std::vector<KernelProfile> kernels;
  std::vector<std::string> warnings;  // unparsable values, missing metrics
};

// Parses `ncu --csv` output (the default "details" page, one row per
// metric; `--page raw` tables with one row per kernel work too). Lines that
// are not part of the CSV table (==PROF== messages, the program's own output)
// are skipped. Units are converted: time to microseconds, "%" kept.
Result<NcuReport> parse_ncu_csv(std::string_view text);

struct SanitizerReport {
  bool summary_seen = false;  // "ERROR SUMMARY: N errors" was printed
  int64_t error_count = 0;    // from the summary (or the errors seen when absent)
  std::vector<Finding> findings;
};

// Parses compute-sanitizer output (its "========= " prefixed report) into
// findings of rule `sanitizer-<tool>`, layer L2, severity reject: one per
// reported error, with the kernel, thread/block and source location when
// the report has them (-lineinfo builds).
SanitizerReport parse_sanitizer_output(std::string_view text, std::string_view tool = "memcheck");

struct ProfileOptions {
  std::string case_filter;          // glob on case names; default: the first performance case
  bool ncu = true;                  // run Nsight Compute
  bool sanitize = false;            // run compute-sanitizer memcheck on the correctness cases
  uint64_t seed = 1;                // inputs are not secret here: profiling is not scoring
  double timeout_seconds = 600;     // per tool run
  bool isolate = true;              // run the tools like the runner: own namespaces, unprivileged
  std::string ncu_program = "ncu";
  std::string sanitizer_program = "compute-sanitizer";
  std::filesystem::path keep_dir;   // copy the work folder here when set
};

struct ProfileResult {
  std::string task, platform;
  std::string profiled_case;        // "case/dtype" that ran under ncu
  bool compiled = false;
  std::vector<Diagnostic> diagnostics;  // compiler output when the build failed
  std::vector<KernelProfile> kernels;
  double total_duration_us = 0;
  std::vector<std::string> warnings;
  std::vector<Finding> findings;    // sanitizer-memcheck
  int64_t sanitizer_errors = -1;    // -1: not run
  std::string error;                // tool missing, replay failed ...
  std::string ncu_log, sanitizer_log;  // capped raw output

  bool ok() const { return compiled && error.empty() && findings.empty(); }
};

ProfileResult profile_candidate(const Task& task, const Platform& platform, const std::string& source,
                                const ProfileOptions& options);

void to_json(nlohmann::json& j, const KernelProfile& k);
void to_json(nlohmann::json& j, const ProfileResult& r);

// Calibration: runs platform.calibrate (JSON on stdout with a "peak" object),
// checks it, and writes calibration_file(platform.name). Returns what was
// written.
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
};
ReplayResponses read_replay_responses(const std::filesystem::path& file);

}  // namespace kgb::profile
