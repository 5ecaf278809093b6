// kgb mcp-server: the benchmark's tools for external agents over MCP.
// kgb mcp-usage: attach token usage an agent's harness reported to an attempt.
#pragma once

#include <CLI/CLI.hpp>

namespace kgb::cli {
void add_mcp_commands(CLI::App& app, int& exit_code);
}  // namespace kgb::cli
