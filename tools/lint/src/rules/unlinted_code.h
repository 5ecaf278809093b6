// unlinted-code: every candidate line the platform's compiler compiles must
// have been parsed by at least one lint pass. The compiler's preprocessing
// passes (compiler_view.h) say which lines it compiles; the lint passes say
// which ranges they skipped (inactive branches) or never reached (a parse that
// stopped early). A compiled line inside a range every pass missed is code no
// rule has seen.
#pragma once

#include <string>
#include <vector>

#include "compiler_view.h"
#include "findings.h"
#include "frontend.h"

namespace kgb::lint::detail {

// `lint_passes` names the lint passes for the message ("c++", "cuda-device", ...).
void check_unlinted_code(const std::string& source, const std::vector<CompiledPass>& compiled,
                         const std::vector<SkippedRange>& skipped_by_all, const std::vector<std::string>& lint_passes,
                         const RuleSetup& setup, FindingSink& sink);

// The compiler's passes could not be compared (they did not finish): a
// whole-file finding, since the compiled lines are unknown.
void report_unlinted_unknown(const std::string& why, const RuleSetup& setup, FindingSink& sink);

}  // namespace kgb::lint::detail
