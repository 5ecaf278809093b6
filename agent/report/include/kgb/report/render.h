// Renderers of a report: a terminal table, Markdown, JSON, and one
// self-contained HTML file (inline CSS and SVG charts, no network access
// needed to view it, readable without JavaScript).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kgb/report/report.h"

namespace kgb::report {

enum class Format { Table, Markdown, Json, Html };
std::optional<Format> format_from_name(std::string_view name);

std::string render_table(const Report& report);
std::string render_markdown(const Report& report);
std::string render_json(const Report& report);  // pretty-printed, ends with a newline
std::string render_html(const Report& report);
std::string render(const Report& report, Format format);

}  // namespace kgb::report
