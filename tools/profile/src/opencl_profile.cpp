// OpenCL platforms: the candidate replays one case several times with the
// runner's enqueue profile on (KGB_OPENCL_PROFILE, see
// backends/opencl/enqueue_profile.h); the first call is a warm-up (program
// builds), the others give per-enqueue events, work sizes, the share of each
// kernel, kernel attributes and build logs. The sanitizer is Oclgrind, an
// OpenCL device simulator that checks every memory access of every work-item.
#include <algorithm>
#include <map>

#include "profiler_internal.h"
#include "text_util.h"

namespace kgb::profile {
namespace {

constexpr int kCalls = 4;          // replayed calls; the first is a warm-up
constexpr size_t kMaxEnqueues = 64;  // kept in the result

}  // namespace

void profile_opencl(Workspace& ws) {
  ProfileResult& r = ws.result;
  auto exe = ws.build("profile", ws.settings.debug_flags, {});
  if (!exe) return;
  auto inst = ws.performance_instance();
  if (!inst) return;
  const auto folder = exe->parent_path();
  auto [requests, responses] = ws.write_replay(folder, "opencl", {*inst}, kCalls);
  ToolRun run = run_tool({exe->string(), "--replay", requests, responses},
                         tool_environment(ws.platform, folder, {{"KGB_OPENCL_PROFILE", "opencl-profile.jsonl"}}), ws.platform, folder,
                         ws.options);
  r.logs["opencl"] = cap(run.out + run.err, 16 * 1024);
  if (!run.spawn_error.empty()) {
    r.error = "the candidate could not be started: " + run.spawn_error;
    return;
  }
  ReplayResponses replies = read_replay_responses(folder / responses);
  for (const auto& e : replies.errors) r.warnings.push_back("profiled run: " + e);
  if (!replies.ready) {
    r.error = "the OpenCL runner did not start (" + run.status.describe() + "): " + trim(run.err.substr(0, 400));
    return;
  }
  OpenClProfile profile = parse_opencl_profile(read_text(folder / "opencl-profile.jsonl"), 1);
  r.warnings.insert(r.warnings.end(), profile.warnings.begin(), profile.warnings.end());
  r.tools.push_back("opencl events");
  const double calls = kCalls - 1;
  r.counters["opencl.calls"] = calls;
  // Per call: the device time of each kernel, the span from the first start
  // to the last end, and how long commands waited between queued and start.
  std::map<int64_t, std::pair<uint64_t, uint64_t>> span;  // job -> (first start, last end)
  double busy_us = 0, waited_us = 0;
  for (const auto& e : profile.enqueues) {
    auto& s = span.try_emplace(e.job, e.start, e.end).first->second;
    s.first = std::min(s.first, e.start);
    s.second = std::max(s.second, e.end);
    busy_us += e.duration_us();
    if (e.start > e.queued) waited_us += static_cast<double>(e.start - e.queued) / 1000.0;
  }
  double span_us = 0;
  for (const auto& [job, s] : span) span_us += s.second > s.first ? static_cast<double>(s.second - s.first) / 1000.0 : 0;
  if (!profile.enqueues.empty()) {
    r.counters["opencl.enqueues_per_call"] = static_cast<double>(profile.enqueues.size()) / calls;
    r.counters["opencl.device_busy_us_per_call"] = busy_us / calls;
    r.counters["opencl.span_us_per_call"] = span_us / calls;
    r.counters["opencl.queued_to_start_us_mean"] = waited_us / static_cast<double>(profile.enqueues.size());
  }
  for (auto& k : profile.kernels) {
    k.duration_us /= calls;
    k.launches = static_cast<int64_t>(static_cast<double>(k.launches) / calls + 0.5);
    r.total_duration_us += k.duration_us;
  }
  r.kernels = std::move(profile.kernels);
  r.enqueues = std::move(profile.enqueues);
  if (r.enqueues.size() > kMaxEnqueues) {
    r.notes.push_back(std::to_string(r.enqueues.size()) + " enqueues profiled; the first " + std::to_string(kMaxEnqueues) + " are listed");
    r.enqueues.resize(kMaxEnqueues);
  }
  if (r.kernels.empty()) r.warnings.push_back("the candidate enqueued no kernel in the profiled calls");
}

void sanitize_opencl(Workspace& ws) {
  ProfileResult& r = ws.result;
  const auto& san = *ws.settings.sanitizer;
  const std::string oclgrind = find_program(ws.options.oclgrind_program);
  if (oclgrind.empty()) {
    r.notes.push_back("sanitizer: '" + ws.options.oclgrind_program + "' not found on PATH (Debian: oclgrind)");
    return;
  }
  auto exe = ws.build("sanitize", san.compile_flags, san.link_flags, san.runner_library);
  if (!exe) return;
  std::vector<CaseInstance> instances = ws.correctness_instances();
  if (instances.empty()) {
    r.error = "no correctness case to run under Oclgrind";
    return;
  }
  const auto folder = exe->parent_path();
  auto [requests, responses] = ws.write_replay(folder, "sanitize", instances);
  ToolRun run = run_tool({oclgrind, "--check-api", "--data-races", exe->string(), "--replay", requests, responses},
                         tool_environment(ws.platform, folder, san.environment), ws.platform, folder, ws.options);
  r.logs["sanitizer"] = cap(run.out + run.err);
  if (!run.spawn_error.empty()) {
    r.error = "oclgrind could not be started: " + run.spawn_error;
    return;
  }
  ReplayResponses replies = read_replay_responses(folder / responses);
  if (!replies.ready) {
    r.error = "the runner did not start under Oclgrind (" + run.status.describe() + "): " + trim(run.err.substr(0, 400));
    return;
  }
  SanitizerReport report = parse_oclgrind_output(run.err + "\n" + run.out);
  r.tools.push_back("oclgrind");
  r.sanitizer = "oclgrind";
  r.sanitizer_errors = report.error_count;
  r.findings = std::move(report.findings);
  // "program line N" -> the launcher's line, found by the source text Oclgrind quotes.
  for (auto& f : r.findings) {
    const auto quote = f.message.rfind(": `");
    if (quote == std::string::npos) continue;
    std::string excerpt = f.message.substr(quote + 3);
    excerpt = excerpt.substr(0, excerpt.find('`'));
    if (int line = find_program_line(ws.source, excerpt); line > 0)
      f.location = "candidate." + ws.platform.source_extension + ":" + std::to_string(line);
  }
  if (replies.results < instances.size()) {
    r.sanitizer_case = case_at(instances, replies.results);
    r.warnings.push_back("the run under Oclgrind stopped (" + run.status.describe() + ") in case " + r.sanitizer_case);
  }
  for (const auto& e : replies.errors) r.warnings.push_back("under Oclgrind: " + e);
}

}  // namespace kgb::profile
