// line-marker: `#line N "file"`, GNU line markers (`# N "file" 1 3`) and
// `#pragma GCC system_header` in candidate text rename the candidate's own
// lines, up to making them look like a system header that the compiler and
// location-based checks treat as trusted. No kernel needs them, so every one
// is rejected, in active and inactive branches alike.
#pragma once

#include <string>
#include <vector>

#include "findings.h"

namespace kgb::lint::detail {

// Scans `text` (raw, unpreprocessed) from `begin`; findings are reported at
// line `first_line + (line in text from begin) - 1` of setup.file_name.
// Returns the offsets of the directives found (their `#`).
std::vector<size_t> scan_line_markers(const std::string& text, size_t begin, int first_line, const RuleSetup& setup,
                       FindingSink& sink);

// True when `text` holds a conditional directive (#if, #ifdef, #elif, #else,
// ...) in any branch: without one, every line is in every configuration, and
// no compiler can take a line a parse skipped.
bool has_conditional_directive(const std::string& text);

// Blanks the directives at `offsets` (to the end of their logical line), so a
// text parsed after the scan keeps its real line numbers.
void blank_directives(std::string& text, const std::vector<size_t>& offsets);

}  // namespace kgb::lint::detail
