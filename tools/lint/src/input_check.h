// Checks on the raw bytes of a candidate, before any parser sees them: a parser
// fed megabytes or binary data wastes the time budget of a whole evaluation.
#pragma once

#include <optional>

#include "kgb/lint.h"

namespace kgb::lint::detail {

// A lint-input-too-large or lint-input-not-text finding, or nothing.
std::optional<LintFinding> check_input(const LintRequest& request);

}  // namespace kgb::lint::detail
