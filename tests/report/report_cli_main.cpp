// `kgb report` alone: the report command group over a minimal main.
#include <CLI/CLI.hpp>

#include "exit_codes.h"
#include "report_commands.h"

int main(int argc, char** argv) {
  CLI::App app{"kgb report, on its own"};
  app.require_subcommand(1);
  int exit_code = kgb::cli::kExitOk;
  kgb::cli::add_report_commands(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kgb::cli::kExitOk : kgb::cli::kExitUsage;
  }
  return exit_code;
}
