// kgb report: metrics, comparison tables and reports over recorded runs.
#pragma once

#include <CLI/CLI.hpp>

namespace kgb::cli {
void add_report_commands(CLI::App& app, int& exit_code);
}  // namespace kgb::cli
