// Runs Clang on one pass of a request: builds the file-system overlay (the
// candidate in memory, stub headers, the prelude), the compiler invocation,
// collects diagnostics and runs the rules. Also builds precompiled preludes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "findings.h"
#include "invocation.h"
#include "rules/rule.h"

namespace kgb::lint::detail {

struct SkippedRange {
  unsigned begin = 0;  // byte offsets into the candidate source
  unsigned end = 0;
};

struct PassInput {
  const ParsePass* pass = nullptr;
  std::string main_path;  // overlay path of `source`
  std::string source;
  std::string precompiled_prelude;  // a .pch to load, or empty
  RuleSetup setup;
  std::vector<EmbeddedProgram>* programs = nullptr;  // where launchers' programs go
  bool disable_free = false;  // leak the AST at the end (a forked child exits right after)
};

struct PassResult {
  bool ran = false;  // the translation unit was parsed; false: the invocation could not start
  bool had_errors = false;
  std::vector<Diagnostic> diagnostics;
  FindingSink findings;
  std::vector<SkippedRange> skipped;  // inactive preprocessor branches of the candidate
  // Where the parse stopped in the candidate (a fatal error, too many errors):
  // the offset after the last token read; kWholeFile when it reached the end.
  static constexpr unsigned kWholeFile = ~0u;
  unsigned parsed_until = kWholeFile;
};

PassResult run_pass(const PassInput& input);

// Everything lint() does after the input checks, in the calling process.
// disable_free leaks the ASTs instead of freeing them (for a child about to exit).
LintReport run_lint_job(const LintRequest& request, bool disable_free);

// Precompiles the pass's prelude into `output_file`.
bool build_prelude(const ParsePass& pass, const std::string& output_file, std::string* error);

}  // namespace kgb::lint::detail
