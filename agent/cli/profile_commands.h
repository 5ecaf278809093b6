#pragma once

#include <CLI/CLI.hpp>

namespace kgb::cli {
// profile (Nsight Compute metrics, --sanitize: compute-sanitizer memcheck),
// calibrate (measured peak figures of a platform, for the roofline floor)
void add_profile_commands(CLI::App& app, int& exit_code);
}  // namespace kgb::cli
