// Text-level policies shared by the rules and the inactive-code scan (no
// Clang here, so they can be unit-tested on their own).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "findings.h"

namespace kgb::lint::detail {

// The header globs a pass may include: the platform's (or the backend's default)
// plus the include-allowlist rule's "extra" option; nothing for OpenCL C programs.
std::vector<std::string> include_allowlist_for(const RuleSetup& setup);
// Why `header` (as written between <> or "") may not be included, or nothing.
std::optional<std::string> include_problem(const std::string& header, const std::vector<std::string>& allowlist);
// True when the text of a string literal defines an OpenCL kernel: `__kernel`
// or `kernel`, then `void` before the body.
bool defines_opencl_kernel(const std::string& text);

}  // namespace kgb::lint::detail
