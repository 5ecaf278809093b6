// The lint commands of `kgb`: lint, lint-symbols, lint-rules. Adding them also
// installs lint and the object symbol check as the evaluator's hooks, so
// `kgb eval` runs them as its first stage and after compiling.
#pragma once

#include <CLI/CLI.hpp>

namespace kgb::cli {

void add_lint_commands(CLI::App& app, int& exit_code);

}  // namespace kgb::cli
