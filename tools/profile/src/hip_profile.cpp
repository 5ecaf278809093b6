// HIP platforms are compile-only here: the profile is the AMDGPU backend's
// resource usage per kernel (registers, LDS, scratch, occupancy), from the
// compile of the candidate with -Rpass-analysis=kernel-resource-usage.
#include "profiler_internal.h"

namespace kgb::profile {

void profile_hip(Workspace& ws) {
  ProfileResult& r = ws.result;
  std::vector<std::string> flags = ws.settings.debug_flags;
  flags.push_back("-Rpass-analysis=kernel-resource-usage");
  std::string log;
  auto built = ws.build("profile", flags, {}, {}, &log);
  if (!built) return;
  r.kernels = parse_hip_resource_usage(log);
  r.tools.push_back("hip resource usage");
  r.logs["compiler"] = log.substr(0, 64 * 1024);
  if (r.kernels.empty()) r.warnings.push_back("the compiler reported no kernel resource usage");
  if (!ws.platform.has("run")) r.notes.push_back(ws.platform.name + " is compile-only here: no timing, no counters, no sanitizer");
}

}  // namespace kgb::profile
