// inactive-code: preprocessor branches no pass compiled are invisible to the
// AST rules, but the platform's compiler may take them (#ifdef __NVCC__,
// #if __GNUC__ >= 12, an arch the parser does not know). Their tokens are
// lexed and checked against the name-based rules and the include allowlist.
#pragma once

#include <string>
#include <vector>

#include "findings.h"
#include "frontend.h"

namespace kgb::lint::detail {

// Offsets skipped by every pass: the intersection of the passes' ranges.
std::vector<SkippedRange> skipped_by_all(const std::vector<std::vector<SkippedRange>>& per_pass);

void scan_inactive_code(const std::string& source, const std::vector<SkippedRange>& ranges, const RuleSetup& setup,
                        FindingSink& sink);

}  // namespace kgb::lint::detail
