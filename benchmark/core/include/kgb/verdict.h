// The verdict of one candidate on one platform (DESIGN 3.4): a typed record,
// never an exception. A failing kernel is data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kgb/diagnostic.h"

namespace kgb {

enum class Stage { Lint, Compile, Check, Time, Done };
enum class Outcome {
  Passed,          // every case correct, no rejecting finding
  LintRejected,    // a static rule rejected the source
  CompileError,    // compiler or linker failed
  RuntimeError,    // crash, non-zero return, killed by a signal or a limit
  Timeout,         // wall-clock limit hit
  WrongResult,     // a correctness case failed
  CheatDetected,   // a dynamic or physical anti-cheating rule fired
  InfraError,      // the harness could not do its job (toolchain missing, device lost)
};

std::string_view stage_name(Stage s);
std::string_view outcome_name(Outcome o);

// A compiler, linker, build-log or lint diagnostic, parsed.
struct CaseCheck {
  std::string name;
  std::string dtype;
  int seed_index = 0;
  bool passed = false;
  std::string status;    // "ok", "mismatch", "nan-mismatch", "shape", "kernel-error", "crash", "timeout", ...
  double max_abs_error = 0;
  double max_rel_error = 0;
  int64_t mismatches = 0;
  int64_t checked = 0;
  std::string output;                       // which output tensor the numbers describe
  std::vector<int64_t> first_bad_index;     // multi-index in that output
  std::string expected, got;                // values at that index, printed
  std::string message;
};

struct Timing {
  double median_us = 0;
  double iqr_us = 0;
  double mean_us = 0;
  double rse = 0;  // relative standard error of the mean
  int64_t iterations = 0;
};

struct CaseTiming {
  std::string name;
  std::string dtype;
  Timing candidate;
  Timing candidate_host;      // host wall clock to a device-wide synchronise
  std::optional<Timing> baseline;
  std::string baseline_kind;  // "aten", "openblas", "plain (written here)", ...
  // Candidate and baseline are timed in interleaved, paired blocks
  // (kgb/paired_speedup.h): the speedup is the median over pairs of baseline
  // block median / candidate block median, with a 95% bootstrap interval.
  // The absolute medians above pool every block of each runner.
  double speedup = 0;
  double speedup_low = 0, speedup_high = 0;  // 0: no interval (fewer than 2 pairs)
  int speedup_pairs = 0;
  bool speedup_unstable = false;  // the interval is wider than EvalOptions::unstable_interval
  double floor_us = 0;        // roofline floor
  double roofline_fraction = 0;  // floor / candidate median
  // Roofline placement (kgb/roofline.h): achieved rates at the candidate's
  // median, as fractions of the platform's peaks, and the closer ceiling.
  double achieved_gflops = 0, achieved_gbs = 0;
  double compute_fraction = 0, bandwidth_fraction = 0;
  std::string bound;          // "memory" | "compute" | "" (no FLOP or byte formula)
  bool rechecked = false;     // outputs of timed calls were checked
};

struct Verdict {
  std::string task;
  std::string platform;
  std::string kernel_hash;  // sha-like digest of the source
  Stage stage = Stage::Lint;
  Outcome outcome = Outcome::InfraError;
  std::string summary;  // one line for a person
  std::vector<Diagnostic> diagnostics;
  std::vector<Finding> findings;
  std::vector<CaseCheck> cases;
  std::vector<CaseTiming> timings;
  double speedup = 0;  // geometric mean over performance cases, 0 when not timed
  std::string child_stdout, child_stderr;  // capped
  std::string platform_facts;  // cpu model / gpu name and clocks at timing time
  double lint_seconds = 0, compile_seconds = 0, check_seconds = 0, time_seconds = 0, total_seconds = 0;

  bool passed() const { return outcome == Outcome::Passed; }
};

void to_json(nlohmann::json& j, const CaseCheck& c);
void to_json(nlohmann::json& j, const Timing& t);
void to_json(nlohmann::json& j, const CaseTiming& t);
void to_json(nlohmann::json& j, const Verdict& v);
void from_json(const nlohmann::json& j, Verdict& v);

// Parses gcc/clang/nvcc style diagnostics ("file:line:col: error: msg",
// "file(line): error: msg"); unparsed lines are attached as notes of the previous one.
std::vector<Diagnostic> parse_compiler_diagnostics(std::string_view output);

}  // namespace kgb
