// What the platform's own compiler compiles of a candidate. Clang's lint passes
// and the real compiler (g++, nvcc, hipcc) can take different preprocessor
// branches: compiler-identifying macros, optimisation and target flags,
// __has_include / __has_builtin, _OPENMP values. The compile step's command
// (kgb::candidate_compile_argv, the same flags) is turned into its
// preprocessing passes, run beside lint's parse, and the candidate lines they
// produce output for are compared with the lines lint parsed (unlinted-code).
// No Clang here.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kgb/lint.h"
#include "kgb/process.h"

namespace kgb::lint::detail {

// One preprocessing pass of the real compiler: "g++ -E", "nvcc host (gcc -E)",
// "nvcc device (gcc -E)", "hipcc device", ...
struct CompilerPass {
  std::string name;
  std::vector<std::string> argv;
  std::string output_file;  // where the preprocessed text goes
};

struct CompiledPass {
  std::string name;
  std::set<int> lines;  // 1-based candidate lines the pass produced output for
};

// The preprocessing passes of a compile command for a candidate saved as
// `source_name` in `work_dir`: `-c` becomes `-E -dD -dI` (macro definitions,
// #undef and #include lines stay in the output, so a directive the compiler
// takes counts as compiled) and the object becomes a .ii file. nvcc is asked
// with --dryrun for the host and device gcc -E runs it performs, which are
// then run as they are; hipcc (Clang) gets --cuda-host-only and
// --cuda-device-only. An empty result with `why` when the command cannot be
// derived.
std::vector<CompilerPass> compiler_passes(const std::vector<std::string>& compile_argv, const std::string& source_name,
                                          const std::string& work_dir, std::string* why);

// The gcc -E commands in `nvcc --dryrun` output that preprocess `source_name`,
// split into words, their -o pointed at `output_prefix` + index + ".ii".
std::vector<CompilerPass> nvcc_preprocess_passes(const std::string& dryrun_output, const std::string& source_name,
                                                 const std::string& output_prefix);

// The lines of `source_name` a preprocessed text has output for, following
// its line markers (`# N "file" flags`, `#line N "file"`).
std::set<int> compiled_lines(const std::string& preprocessed, const std::string& source_name);

// The running passes for one lint request.
class CompilerView {
 public:
  ~CompilerView();
  // Writes the candidate to a private folder and starts the passes; null with
  // `why` when the platform has no compile command or it cannot be started.
  static std::unique_ptr<CompilerView> start(const LintRequest& request, std::string* why);
  // Waits for every pass (at most `seconds`); an error names the pass and the
  // compiler's complaint (a source the compiler rejects is the compile
  // step's business: its passes then report what they could).
  Result<std::vector<CompiledPass>> finish(double seconds);

 private:
  CompilerView() = default;
  std::unique_ptr<TempDir> dir_;
  std::string source_name_;
  std::vector<CompilerPass> passes_;
  std::vector<std::unique_ptr<ChildProcess>> children_;
};

}  // namespace kgb::lint::detail
