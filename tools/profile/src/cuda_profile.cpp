// CUDA platforms: Nsight Compute on one case (metrics per kernel launch) and
// compute-sanitizer memcheck on the correctness cases. The candidate is
// built as the evaluation builds it (cuda descriptors already pass -lineinfo).
#include "profiler_internal.h"
#include "text_util.h"

namespace kgb::profile {

void profile_cuda(Workspace& ws) {
  ProfileResult& r = ws.result;
  auto exe = ws.build("profile", ws.settings.debug_flags, {});
  if (!exe) return;
  auto inst = ws.performance_instance();
  if (!inst) return;
  const auto folder = exe->parent_path();
  auto [requests, responses] = ws.write_replay(folder, "ncu", {*inst});
  const std::string ncu = find_program(ws.options.ncu_program);
  if (ncu.empty()) {
    r.error = "Nsight Compute ('" + ws.options.ncu_program + "') not found on PATH";
    return;
  }
  std::string metrics;
  for (const auto& m : ncu_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  ToolRun run = run_tool({ncu, "--csv", "--print-units", "base", "--clock-control", "none", "--target-processes", "all", "--metrics",
                          metrics, exe->string(), "--replay", requests, responses},
                         tool_environment(ws.platform, folder), ws.platform, folder, ws.options);
  r.logs["ncu"] = cap(run.out + run.err);
  if (!run.spawn_error.empty()) {
    r.error = "ncu could not be started: " + run.spawn_error;
    return;
  }
  auto replies = read_replay_responses(folder / responses);
  for (const auto& e : replies.errors) r.warnings.push_back("under ncu: " + e);
  auto parsed = parse_ncu_csv(run.out);
  if (!parsed) {
    r.error = "ncu produced no profile (" + run.status.describe() + "): " + parsed.error().message;
    return;
  }
  r.tools.push_back("ncu");
  for (auto& k : parsed->kernels) {
    if (k.name.rfind("kgb_runner_", 0) == 0 || k.name.find("::kgb_runner_") != std::string::npos) continue;  // the harness's own
    r.total_duration_us += k.duration_us;
    r.kernels.push_back(std::move(k));
  }
  for (auto& k : r.kernels) k.share = r.total_duration_us > 0 ? k.duration_us / r.total_duration_us : 0;
  r.warnings.insert(r.warnings.end(), parsed->warnings.begin(), parsed->warnings.end());
  if (r.kernels.empty()) r.warnings.push_back("ncu saw no kernel of the candidate");
}

void sanitize_cuda(Workspace& ws) {
  ProfileResult& r = ws.result;
  auto exe = ws.build("sanitize", ws.settings.sanitizer->compile_flags, ws.settings.sanitizer->link_flags);
  if (!exe) return;
  std::vector<CaseInstance> instances = ws.correctness_instances();
  if (instances.empty()) {
    r.error = "no correctness case to run under compute-sanitizer";
    return;
  }
  const auto folder = exe->parent_path();
  auto [requests, responses] = ws.write_replay(folder, "sanitizer", instances);
  const std::string sanitizer = find_program(ws.options.sanitizer_program);
  if (sanitizer.empty()) {
    r.error = "compute-sanitizer ('" + ws.options.sanitizer_program + "') not found on PATH";
    return;
  }
  ToolRun run = run_tool({sanitizer, "--tool", "memcheck", "--print-limit", "200", exe->string(), "--replay", requests, responses},
                         tool_environment(ws.platform, folder, ws.settings.sanitizer->environment), ws.platform, folder, ws.options);
  r.logs["sanitizer"] = cap(run.out + run.err);
  if (!run.spawn_error.empty()) {
    r.error = "compute-sanitizer could not be started: " + run.spawn_error;
    return;
  }
  SanitizerReport report = parse_sanitizer_output(run.out + "\n" + run.err, "memcheck");
  if (!report.summary_seen && report.findings.empty()) {
    r.error = "compute-sanitizer printed no report (" + run.status.describe() + ")";
    return;
  }
  r.tools.push_back("compute-sanitizer memcheck");
  r.sanitizer = "compute-sanitizer memcheck";
  r.sanitizer_errors = report.error_count;
  r.findings = std::move(report.findings);
  auto replies = read_replay_responses(folder / responses);
  if (!r.findings.empty()) r.sanitizer_case = case_at(instances, replies.results);
  for (const auto& e : replies.errors) r.warnings.push_back("under compute-sanitizer: " + e);
}

}  // namespace kgb::profile
