// Internals of profile_candidate shared by the per-backend runs: the work
// folder, builds of the candidate with extra flags, the cases, and running a
// tool on a replay inside the runner's isolation.
#pragma once

#include <filesystem>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kgb/case.h"
#include "kgb/process.h"
#include "kgb/wire.h"
#include "kgb/profile.h"

namespace kgb::profile {

struct ToolRun {
  ExitStatus status;
  std::string out, err;
  std::string spawn_error;
};

// One profile_candidate call: what it works on and what it produces.
struct Workspace {
  const Task& task;
  const Platform& platform;
  const std::string& source;
  const ProfileOptions& options;
  const ProfileSettings& settings;
  std::filesystem::path dir;  // the temporary work folder
  ProfileResult& result;
  std::list<Case> case_storage;  // cases made here (reduced), which instances point into

  // Compiles and links the candidate in dir/<name> with the platform's
  // command lines plus the extra flags (after the compiler), linking
  // `runner_library` instead of the platform's when given. Returns the
  // executable, or nullopt after recording why (diagnostics or error).
  std::optional<std::filesystem::path> build(const std::string& name, const std::vector<std::string>& compile_flags,
                                             const std::vector<std::string>& link_flags, const std::string& runner_library = {},
                                             std::string* compiler_log = nullptr);

  // The case the performance tools run: the first performance case matching
  // the filter, else the first correctness case matching it, else the first
  // performance case. Sets result.profiled_case.
  std::optional<CaseInstance> performance_instance();
  // That case with its largest dimensions halved until its tensors take at
  // most `max_bytes` (cachegrind). Sets result.reduced_case.
  std::optional<CaseInstance> reduced_instance(int64_t max_bytes);
  // Every correctness case (and dtype) matching the filter.
  std::vector<CaseInstance> correctness_instances();

  // Writes the replay of `instances` as <folder>/<stem>.requests (each
  // instance `repeat` times) and returns (requests, responses) file names.
  std::pair<std::string, std::string> write_replay(const std::filesystem::path& folder, const std::string& stem,
                                                   const std::vector<CaseInstance>& instances, int repeat = 1);
  // The same for jobs made by the caller (a timing job).
  std::pair<std::string, std::string> write_jobs(const std::filesystem::path& folder, const std::string& stem,
                                                 const std::vector<wire::Job>& jobs);
};

// The environment of a tool run: the runner's (scrubbed, the platform's
// variables) plus PATH and LD_LIBRARY_PATH, which the tools need to find
// their own parts, and `extra`.
std::map<std::string, std::string> tool_environment(const Platform& platform, const std::filesystem::path& work,
                                                    const std::map<std::string, std::string>& extra = {});

// Runs argv in `work` (isolated like the runner unless options.isolate is off).
ToolRun run_tool(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
                 const Platform& platform, const std::filesystem::path& work, const ProfileOptions& options);

// The absolute path of a program on PATH (or the path itself when it has a
// slash and is executable); "" when not found.
std::string find_program(const std::string& name);

bool write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes);
std::string read_text(const std::filesystem::path& path);

// The label of the case a replay was running when the process stopped: the
// (results + 1)-th instance, or "" when every job answered.
std::string case_at(const std::vector<CaseInstance>& instances, size_t results, int repeat = 1);

// Per backend (cpu_profile.cpp, opencl_profile.cpp, cuda_profile.cpp, hip_profile.cpp).
void profile_cpu(Workspace& ws);
void sanitize_cpu(Workspace& ws);
void profile_opencl(Workspace& ws);
void sanitize_opencl(Workspace& ws);
void profile_cuda(Workspace& ws);
void sanitize_cuda(Workspace& ws);
void profile_hip(Workspace& ws);

}  // namespace kgb::profile
