// Parsers of the profiling and sanitizer tools' output, separate from the
// runs so that recorded output is tested on hosts without the tool or device.
// Included by kgb/profile.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kgb/result.h"
#include "kgb/verdict.h"

namespace kgb::profile {

struct KernelProfile;
struct Enqueue;
struct LineCost;

// --- Nsight Compute (CUDA) ---------------------------------------------------

// The metrics asked of ncu: small, available on Volta and newer, and enough
// to say whether a kernel is bound by memory, by issue, or by latency.
const std::vector<std::string>& ncu_metrics();

struct NcuReport {
  std::vector<KernelProfile> kernels;
  std::vector<std::string> warnings;  // unparsable values, missing metrics
};

// Parses `ncu --csv` output (the default "details" page, one row per
// metric; `--page raw` tables with one row per kernel work too). Lines that
// are not part of the CSV table (==PROF== messages, the program's own output)
// are skipped. Units are converted: time to microseconds, "%" kept.
Result<NcuReport> parse_ncu_csv(std::string_view text);

// --- sanitizers ----------------------------------------------------------------

struct SanitizerReport {
  bool summary_seen = false;  // the tool's closing summary was printed
  int64_t error_count = 0;    // from the summary (or the errors seen when absent)
  std::vector<Finding> findings;
};

// compute-sanitizer (its "========= " prefixed report) into findings of rule
// `sanitizer-<tool>`, layer L2, severity reject: one per reported error, with
// the kernel, thread/block and source location when the report has them
// (-lineinfo builds).
SanitizerReport parse_sanitizer_output(std::string_view text, std::string_view tool = "memcheck");

// AddressSanitizer and UndefinedBehaviorSanitizer reports (GCC and Clang
// runtimes): rule `sanitizer-asan` / `sanitizer-ubsan`. The location is the
// first stack frame in `candidate_file` (a base name such as "candidate.cpp"),
// else the first frame with a source location; paths are cut to base names.
// The message says what happened and, for heap errors, where the address lies
// relative to the allocation ("0 bytes after a 4036-byte allocation").
// `summary_seen` is true when an error report was complete.
SanitizerReport parse_asan_output(std::string_view text, std::string_view candidate_file);

// Oclgrind's reports ("Invalid read of size 4 at global memory address ...",
// data races, uninitialised values, API errors): rule `sanitizer-oclgrind`,
// with kernel, work-item and "line N of the program" (mapped to the launcher
// later, see map_program_line).
SanitizerReport parse_oclgrind_output(std::string_view text);

// The line of `launcher_source` holding `excerpt` (a line of an OpenCL program
// embedded in it), or 0 when it is not found exactly once.
int find_program_line(std::string_view launcher_source, std::string_view excerpt);

// --- CPU -------------------------------------------------------------------------

// `perf stat -x,` output: event -> count. Events perf printed as
// "<not supported>" or "<not counted>" go to `unsupported`.
struct PerfStat {
  std::map<std::string, double> counts;
  std::vector<std::string> unsupported;
};
PerfStat parse_perf_stat(std::string_view text);

// A cachegrind output file (`--cachegrind-out-file`): totals and per-line
// event counts of the source files whose base name is `file` (the candidate),
// lines sorted by data misses, most first. `events` lists the event names in
// the file's order.
struct CachegrindReport {
  std::vector<std::string> events;
  std::map<std::string, int64_t> totals;        // the candidate's lines together
  std::map<std::string, int64_t> program_totals;  // the whole program ("summary:" line)
  std::vector<LineCost> lines;
  std::map<std::string, std::string> caches;    // "I1", "D1", "LL" -> "32768 B, 64 B, 8-way associative"
};
Result<CachegrindReport> parse_cachegrind(std::string_view text, std::string_view file);

// --- OpenCL ------------------------------------------------------------------------

// The runner's profile file (KGB_OPENCL_PROFILE, JSON lines): enqueues of job
// `from_job` on (earlier jobs are warm-up), and per kernel its attributes and
// build log. Kernels are returned in order of appearance with launches,
// summed device time and share filled in.
struct OpenClProfile {
  std::vector<Enqueue> enqueues;
  std::vector<KernelProfile> kernels;
  std::vector<std::string> warnings;  // malformed lines
};
OpenClProfile parse_opencl_profile(std::string_view text, int64_t from_job = 0);

// --- HIP ----------------------------------------------------------------------------

// The AMDGPU backend's resource-usage remarks (hipcc
// -Rpass-analysis=kernel-resource-usage): one KernelProfile per function with
// attributes sgpr, vgpr, agpr, scratch_bytes, occupancy_waves, lds_bytes.
std::vector<KernelProfile> parse_hip_resource_usage(std::string_view text);

}  // namespace kgb::profile
