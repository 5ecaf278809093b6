// The LLM commands of `kgb`:
//   kgb oracle-server --port N [options]   the local model server (see kgb/oracle/server.h)
//   kgb chat --provider P --model M [--base-url U] "prompt"   one call, prints reply and usage
#pragma once

#include <CLI/CLI.hpp>

namespace kgb::cli {

void add_llm_commands(CLI::App& app, int& exit_code);

}  // namespace kgb::cli
