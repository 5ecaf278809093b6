#pragma once

#include <CLI/CLI.hpp>

namespace kgb::cli {
// run (start or resume an agent run), export (a run's records as JSONL or CSV),
// runs (the runs in a store)
void add_agent_commands(CLI::App& app, int& exit_code);
}  // namespace kgb::cli
