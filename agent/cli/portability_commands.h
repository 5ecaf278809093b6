#pragma once

#include <CLI/CLI.hpp>

namespace kgb::cli {
// portability: the same kernels across several platforms, with the
// performance-portability metric.
void add_portability_commands(CLI::App& app, int& exit_code);
}  // namespace kgb::cli
