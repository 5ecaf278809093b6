// Reads runs from a run store file into the plain structs of model.h.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "kgb/report/model.h"
#include "kgb/result.h"

namespace kgb::report {

// Loads the given runs, in the given order, with their attempts, iterations,
// evaluations, tool calls, LLM call latencies and best kernels. Errors:
// "report.no-store" (no such file), "store.*" (unreadable store),
// "store.unknown-run" (a run id the store does not hold).
Result<std::vector<Run>> load_runs(const std::filesystem::path& store_file, const std::vector<std::string>& run_ids);

// The ids of every run of the store, oldest first.
Result<std::vector<std::string>> list_run_ids(const std::filesystem::path& store_file);

}  // namespace kgb::report
