// Which tasks a per-task sweep test covers. Primary sweeps (lint, cpu-x86_64
// and PoCL evaluation, nvcc sm_90a compiles) cover every task on every run.
// Secondary sweeps (other CUDA archs, hipcc, qemu CPUs) cover the tasks
// changed since a base commit, one sentinel task per source family
// (tests/tasks/sentinels.txt) and a rotating slice of the rest, so CI time
// grows with the change rather than with the benchmark. docs/ci.md has the
// rules and the environment variables.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kgb/result.h"
#include "kgb/task.h"

namespace kgb::test {

// Tasks are partitioned into this many slices by crc32(task id); one slice
// per commit joins the secondary sweeps. 32 since CI passed 40 minutes at 151
// tasks (docs/ci.md, "When CI passes 40 minutes", step 1).
inline constexpr int kDefaultSliceCount = 32;

enum class Sweep { Primary, Secondary };

// The platforms every task is checked on in every run. The other platforms
// a solution file serves (cpu-aarch64, cpu-riscv64, cuda-sm80, cuda-sm100,
// hip-gfx90a, opencl-nvidia) are secondary targets.
inline constexpr std::array<std::string_view, 3> kPrimaryPlatforms{"cpu-x86_64", "opencl-pocl", "cuda-sm90"};
bool is_primary_platform(std::string_view platform);

// Slice `index` of `count` ("3/16").
struct Slice {
  int index = 0;
  int count = kDefaultSliceCount;
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};
Result<Slice> parse_slice(std::string_view text);

// What the environment asks for.
struct SelectionSettings {
  bool sweep_all = false;            // KGB_TASK_SWEEP=all: every task in every sweep
  std::optional<Slice> forced_slice;  // KGB_TASK_SLICE=k/N
  std::string base_ref;              // KGB_BASE_REF; empty: the default rule
  std::string family;                // KGB_TASK_FAMILY (a ctest shard); empty: every family
};
Result<SelectionSettings> settings_from_environment();

// What git says about the source tree.
struct Checkout {
  std::string head;                        // commit id of HEAD
  std::string base;                        // commit changes are counted from; empty: none resolvable
  std::string base_rule;                   // how `base` was chosen, for the log
  std::vector<std::string> changed_paths;  // relative to the source root: committed, staged,
                                           // unstaged and untracked changes since `base`
};
// nullopt when `source_root` is not inside a git work tree or git is missing
// (a source tarball). `base_ref` empty: the merge base with origin/main or
// main where that is not HEAD itself, else HEAD~1. An unknown `base_ref` is an
// error.
Result<std::optional<Checkout>> inspect_checkout(const std::filesystem::path& source_root, const std::string& base_ref);

// zlib's CRC-32 (IEEE 802.3, reflected): crc32("123456789") == 0xCBF43926.
uint32_t crc32(std::string_view bytes);

// The ids of the task folders under `tasks_root` ("<source>/<name>"), sorted;
// a folder counts whether or not its spec loads.
std::vector<std::string> task_ids_under(const std::filesystem::path& tasks_root);

// Task ids, one per line; '#' starts a comment.
Result<std::vector<std::string>> read_sentinels(const std::filesystem::path& file);

// The tasks touched by `changed_paths` (relative to the source root): any file
// under benchmark/tasks/<source>/<name>/, or a baseline file
// backends/<backend>/baselines/<source>/<name>.<ext> (or a folder of that name).
std::vector<std::string> changed_tasks(const std::vector<std::string>& task_ids,
                                       const std::vector<std::string>& changed_paths);

struct TaskSelection {
  std::vector<std::string> ids;  // selected, sorted
  std::string reason;            // why this set ("primary sweep: every task", ...)
  std::optional<Slice> slice;    // the rotating slice of a secondary sweep
  std::vector<std::string> changed, sentinels, sliced;  // what each part contributed
};

// Pure: the selection of one sweep over `task_ids` (restricted to
// settings.family when set). `checkout` nullopt: no git, every task.
TaskSelection select_tasks(Sweep sweep, const std::vector<std::string>& task_ids,
                           const std::vector<std::string>& sentinels, const SelectionSettings& settings,
                           const std::optional<Checkout>& checkout);

// The lines a sweep prints so a failure reproduces: KGB_TASK_SLICE=k/N, the
// base commit, and the selected ids with the reason each was chosen.
std::string describe(const TaskSelection& selection, const std::optional<Checkout>& checkout);

// What a sweep test iterates over: the selected tasks of this checkout (from
// kgb::tasks_root() and kgb::source_root()), loaded, with the ones that do not
// load kept as errors naming their spec file. The selection is printed.
struct SweepTasks {
  TaskSelection selection;
  std::vector<Task> tasks;
  std::vector<Error> load_errors;
};
Result<SweepTasks> sweep_tasks(Sweep sweep);

}  // namespace kgb::test
