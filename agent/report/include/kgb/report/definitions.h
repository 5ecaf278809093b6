// The definitions of the report's metrics, one sentence or two each: printed
// by `kgb report --help`, embedded in every rendered report, and the same
// words as docs/reports.md.
#pragma once

#include <string>
#include <vector>

namespace kgb::report {

struct Definition {
  std::string name;
  std::string text;
};

const std::vector<Definition>& metric_definitions();

// The definitions as plain text wrapped at `width` columns ("name: text").
std::string definitions_text(size_t width = 78);

}  // namespace kgb::report
