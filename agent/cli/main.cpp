// kgb: the KernelGenBench command line. Each command group lives in its own
// file; this one only assembles them.
#include <CLI/CLI.hpp>

#include "eval_commands.h"
#include "exit_codes.h"
#include "json_stdout.h"
#include "job_commands.h"
#ifdef KGB_HAVE_LINT
#include "kgb/evaluator.h"
#include "kgb/lint.h"
#include "lint_commands.h"
#endif
#ifdef KGB_HAVE_LLM
#include "llm_commands.h"
#endif
#ifdef KGB_HAVE_AGENT_LOOP
#include "agent_commands.h"
#endif
#ifdef KGB_HAVE_MCP
#include "mcp_commands.h"
#endif
#ifdef KGB_HAVE_PORTABILITY
#include "portability_commands.h"
#endif
#ifdef KGB_HAVE_PROFILE
#include "profile_commands.h"
#endif
#ifdef KGB_HAVE_REPORT
#include "report_commands.h"
#endif

int main(int argc, char** argv) {
#ifdef KGB_HAVE_LINT
  // Lint is stage 1 of every evaluation, and the symbol check follows the compile.
  kgb::set_default_eval_hooks(kgb::lint::eval_hooks());
#endif
  CLI::App app{"kgb: KernelGenBench, a benchmark and agent framework for LLM-generated kernels"};
  app.require_subcommand(1);
  int exit_code = kgb::cli::kExitOk;
  kgb::cli::add_eval_commands(app, exit_code);
  kgb::cli::add_job_commands(app, exit_code);
#ifdef KGB_HAVE_LINT
  kgb::cli::add_lint_commands(app, exit_code);
#endif
#ifdef KGB_HAVE_LLM
  kgb::cli::add_llm_commands(app, exit_code);
#endif
#ifdef KGB_HAVE_AGENT_LOOP
  kgb::cli::add_agent_commands(app, exit_code);
#endif
#ifdef KGB_HAVE_MCP
  kgb::cli::add_mcp_commands(app, exit_code);
#endif
#ifdef KGB_HAVE_PORTABILITY
  kgb::cli::add_portability_commands(app, exit_code);
#endif
#ifdef KGB_HAVE_PROFILE
  kgb::cli::add_profile_commands(app, exit_code);
#endif
#ifdef KGB_HAVE_REPORT
  kgb::cli::add_report_commands(app, exit_code);
#endif
  std::unique_ptr<kgb::cli::JsonStdout> json;
  if (kgb::cli::JsonStdout::requested(argc, argv)) json = std::make_unique<kgb::cli::JsonStdout>();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints "error: ..." (or the help) to stderr
    exit_code = code == 0 ? kgb::cli::kExitOk : kgb::cli::kExitUsage;
  }
  return json ? json->finish(exit_code) : exit_code;
}
