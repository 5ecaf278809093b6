// The profiler's summary in the agent's feedback: a correct kernel slower
// than its baseline is run under the platform's profile tools (kgb/profile.h)
// after its timed evaluation, on the same job (so it holds the device slot
// the timing held), and the result travels in the tool result's data: the
// summary lines for the model, the full result for the run store.
#include <chrono>

#include "kgb/agent/tools.h"
#include "kgb/profile.h"

namespace kgb::agent {

nlohmann::json ToolBackend::profile(const std::string& source, const Task& task, const Platform& platform, const Verdict& timed) {
  profile::ProfileOptions options;
  options.timeout_seconds = 300;
  // The case the kernel is slowest on relative to its baseline.
  const CaseTiming* slowest = nullptr;
  for (const auto& t : timed.timings)
    if (t.speedup > 0 && (!slowest || t.speedup < slowest->speedup)) slowest = &t;
  if (slowest) options.case_filter = slowest->name;
  profile::ProfileResult r = profile::profile_candidate(task, platform, source, options);
  profile::attach_timings(r, timed);
  nlohmann::json j;
  to_json(j, r);
  return j;
}

void add_profiler_summary(ToolResult& result, ToolBackend& tools, const std::string& source, const Task& task,
                          const Platform& platform, double below) {
  if (below <= 0 || !result.correct || !result.verdict || result.verdict->timings.empty()) return;
  if (result.speedup <= 0 || result.speedup >= below) return;  // no baseline, or fast enough
  const auto started = std::chrono::steady_clock::now();
  nlohmann::json profile;
  try {
    profile = tools.profile(source, task, platform, *result.verdict);
  } catch (const std::exception& e) {
    profile = {{"summary", {std::string("No profile: ") + e.what() + "."}}, {"error", e.what()}};
  }
  profile["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.data["profiler"] = std::move(profile);
}

}  // namespace kgb::agent
