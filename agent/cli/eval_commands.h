#pragma once

#include <CLI/CLI.hpp>

namespace kgb::cli {
// tasks, show, eval, validate, platforms
void add_eval_commands(CLI::App& app, int& exit_code);
}  // namespace kgb::cli
