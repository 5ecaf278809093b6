#pragma once

#include <CLI/CLI.hpp>

namespace kgb::cli {

// kgb eval-job (one job file, the reply as JSON) and kgb slurm-worker (serves a
// job spool inside a scheduler job): the node side of `--executor slurm`.
void add_job_commands(CLI::App& app, int& exit_code);

}  // namespace kgb::cli
