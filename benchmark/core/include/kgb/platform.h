// Platform descriptors: one JSON file per concrete target under
// backends/platforms/. Adding a chip is adding a file.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kgb/result.h"

namespace kgb {

struct PlatformLimits {
  int64_t address_space_mb = 8192;  // RLIMIT_AS; 0 = unlimited (device runtimes map large ranges)
  int64_t cpu_seconds = 120;        // RLIMIT_CPU
  double wall_seconds = 60;         // whole child process, then the process group is killed
  int64_t processes = 256;          // RLIMIT_NPROC (enforced for the unprivileged child user)
  int64_t file_size_mb = 64;        // RLIMIT_FSIZE
  int64_t open_files = 256;         // RLIMIT_NOFILE
  double compile_seconds = 120;
  int64_t output_capture_bytes = 64 * 1024;  // per stream
};

struct PlatformPeak {
  double gflops_fp32 = 0;    // upper bounds used for the roofline floor
  double gflops_fp64 = 0;
  double gflops_fp16 = 0;
  double bandwidth_gbs = 0;
  bool per_core = false;     // CPU platforms: figures per core, scaled by the cores online
};

struct Platform {
  std::string name;          // "cpu-x86_64"
  std::string backend;       // "cpu", "opencl", "cuda", "hip"
  std::string language;      // shown to the model
  std::string arch;          // "x86_64", "sm_90", ...
  std::string source_extension;  // "cpp", "cu", ...
  std::string solution_file;     // file name of the bundled solution in a task's solutions/
  std::string hardware;          // facts for the prompt
  std::vector<std::string> compile_command;  // placeholders: {source} {object} {abi} {flags}
  std::vector<std::string> link_command;     // placeholders: {object} {glue} {runner} {exe}
  std::string runner_library;    // file name under build_root(), e.g. "backends/cpu/libkgb_runner_cpu.a"
  std::string baseline_runner;   // prebuilt executable under build_root(), may be empty
  std::vector<std::string> emulator;         // prefix for running, e.g. {"qemu-aarch64","-L","/usr/aarch64-linux-gnu"}
  std::vector<std::string> capabilities;     // "run", "time", "compile_only", "emulated", "cpu_device"
  std::vector<std::string> required_programs;  // must be on PATH for the platform to be available
  // Optional availability probe (placeholders {build_root} {source_root}), run
  // with the platform's environment: exit 0 = available; otherwise its output
  // is the reason (e.g. "no OpenCL device matches vendor 'nvidia'").
  std::vector<std::string> probe;
  // Optional microbenchmark (same placeholders) printing a JSON object whose
  // "peak" holds measured figures; `kgb calibrate` stores its output as
  // calibration_file(), which the loader overlays on `peak`.
  std::vector<std::string> calibrate;
  std::vector<std::string> allowed_includes;   // header allowlist for lint
  std::vector<std::string> allowed_symbols;    // undefined-symbol allowlist (regexes) for the symbol check
  std::map<std::string, std::string> environment;  // set in the child (e.g. OMP_NUM_THREADS)
  PlatformPeak peak;
  PlatformLimits limits;
  std::filesystem::path file;  // where it was loaded from
  std::filesystem::path calibrated_from;  // calibration file overlaid on `peak`, empty when none

  bool has(std::string_view capability) const;
};

struct PlatformAvailability {
  bool available = false;
  std::string reason;  // why not, when not
};

Result<Platform> load_platform_file(const std::filesystem::path& file);
// Where `kgb calibrate` keeps a platform's measured peak figures:
// build_root()/calibration/<name>.json.
std::filesystem::path calibration_file(const std::string& platform_name);
// Loads backends/platforms/<name>.json.
Result<Platform> load_platform(const std::string& name);
// Every descriptor; a malformed file is reported in `errors`, never aborts the rest.
std::vector<Platform> load_all_platforms(std::vector<Error>* errors = nullptr);
PlatformAvailability check_availability(const Platform& platform);

}  // namespace kgb
