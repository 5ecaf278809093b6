// Where the project's data lives: task folders, platform descriptors, prompt
// templates and the prebuilt runner libraries. Defaults point at the source and
// build trees this binary was configured from; KGB_ROOT and KGB_BUILD_ROOT
// override them (an installed or relocated tree), KGB_TASKS_ROOT the task
// folders alone (another benchmark, or planted tasks in tests).
#pragma once

#include <filesystem>

namespace kgb {

std::filesystem::path source_root();     // has benchmark/, backends/, prompts/
std::filesystem::path build_root();      // has the runner libraries and kgb-baseline-*
std::filesystem::path tasks_root();      // $KGB_TASKS_ROOT, else source_root()/benchmark/tasks
std::filesystem::path platforms_root();  // source_root()/backends/platforms
std::filesystem::path prompts_root();    // source_root()/prompts
std::filesystem::path abi_include_dir(); // holds kgb_kernel.h

}  // namespace kgb
