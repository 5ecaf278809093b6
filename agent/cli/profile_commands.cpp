// The profiling commands: profile, calibrate.
#include "profile_commands.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exit_codes.h"
#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/profile.h"
#include "kgb/task.h"

namespace kgb::cli {
namespace {

using nlohmann::json;

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

void print_profile_text(const profile::ProfileResult& r) {
  std::cout << "task:      " << r.task << "\n"
            << "platform:  " << r.platform << "\n";
  if (!r.profiled_case.empty()) std::cout << "case:      " << r.profiled_case << "\n";
  if (!r.reduced_case.empty()) std::cout << "reduced:   " << r.reduced_case << " (cache simulation)\n";
  if (!r.tools.empty()) {
    std::cout << "tools:     ";
    for (size_t i = 0; i < r.tools.size(); ++i) std::cout << (i ? ", " : "") << r.tools[i];
    std::cout << "\n";
  }
  for (const auto& d : r.diagnostics)
    if (d.severity == "error" || d.severity == "fatal")
      std::cout << "  " << (d.file.empty() ? "" : d.file + ":" + std::to_string(d.line) + ": ") << d.severity << ": " << d.message << "\n";
  for (const auto& e : r.roofline)
    std::printf("timed:     %s/%s %.2f us, %.3g GB/s (%s of peak bandwidth), %.3g GFLOP/s (%s of peak compute), %s-bound\n",
                e.case_name.c_str(), e.dtype.c_str(), e.median_us, e.achieved_gbs, percent(e.bandwidth_fraction).c_str(),
                e.achieved_gflops, percent(e.compute_fraction).c_str(), e.bound.empty() ? "?" : e.bound.c_str());
  if (!r.kernels.empty() && r.backend == "cuda") {
    std::printf("%-4s %-44s %12s %8s %8s %9s  %s\n", "id", "kernel", "duration", "DRAM%", "SM%", "occupancy", "top stalls (warps per issue)");
    for (const auto& k : r.kernels) {
      std::string name = k.name.size() > 44 ? k.name.substr(0, 41) + "..." : k.name;
      std::string stalls;
      for (const auto& [reason, value] : k.top_stalls) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s%s %.2f", stalls.empty() ? "" : ", ", reason.c_str(), value);
        stalls += buf;
      }
      std::printf("%-4lld %-44s %9.2f us %7.1f%% %7.1f%% %8.1f%%  %s\n", static_cast<long long>(k.id), name.c_str(), k.duration_us,
                  k.dram_throughput_pct, k.sm_throughput_pct, k.achieved_occupancy_pct, stalls.c_str());
    }
    std::printf("total:     %.2f us over %zu kernel launch(es)\n", r.total_duration_us, r.kernels.size());
  } else if (!r.kernels.empty()) {
    // OpenCL: per kernel per call; HIP: the compiler's resource usage.
    for (const auto& k : r.kernels) {
      std::printf("kernel:    %s", k.name.c_str());
      if (r.backend == "opencl")
        std::printf(": %lld enqueue(s) per call, %.2f us (%s), global %s, local %s", static_cast<long long>(k.launches), k.duration_us,
                    percent(k.share).c_str(), k.grid.c_str(), k.block.c_str());
      std::printf("\n");
      std::string attributes;
      for (const auto& [key, value] : k.attributes) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s%s %g", attributes.empty() ? "" : ", ", key.c_str(), value);
        attributes += buf;
      }
      if (!attributes.empty()) std::cout << "           " << attributes << "\n";
      if (!k.build_log.empty()) std::cout << "           build log: " << k.build_log.substr(0, 400) << "\n";
    }
    if (r.backend == "opencl") std::printf("total:     %.2f us of device time per call\n", r.total_duration_us);
  }
  for (const auto& [name, value] : r.counters) std::printf("counter:   %s = %g\n", name.c_str(), value);
  for (const auto& l : r.hot_lines) {
    std::string events;
    for (const char* e : {"Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw"})
      if (auto it = l.events.find(e); it != l.events.end()) events += std::string(events.empty() ? "" : " ") + e + "=" + std::to_string(it->second);
    std::cout << "line:      " << l.file << ":" << l.line << " " << events << "  | " << l.excerpt << "\n";
  }
  if (r.sanitizer_errors >= 0) std::cout << "sanitizer: " << r.sanitizer << " reported " << r.sanitizer_errors << " error(s)\n";
  for (const auto& f : r.findings)
    std::cout << "  [" << f.severity << "] " << f.layer << " " << f.rule << " (" << f.location << "): " << f.message << "\n";
  for (const auto& n : r.notes) std::cout << "note:      " << n << "\n";
  for (const auto& w : r.warnings) std::cout << "warning:   " << w << "\n";
  if (!r.error.empty()) std::cout << "error:     " << r.error << "\n";
  if (!r.summary.empty()) {
    std::cout << "summary:\n";
    for (const auto& line : r.summary) std::cout << "  " << line << "\n";
  }
}

const Task* find_task(const std::vector<Task>& tasks, const std::string& id) {
  for (const auto& t : tasks)
    if (t.id == id) return &t;
  return nullptr;
}

}  // namespace

void add_profile_commands(CLI::App& app, int& exit_code) {
  // kgb profile
  {
    auto* cmd = app.add_subcommand("profile",
                                   "run a candidate under the platform's profilers (perf or cachegrind, OpenCL events, Nsight Compute, "
                                   "compiler resource usage) and with --sanitize its sanitizer (ASan+UBSan, Oclgrind, compute-sanitizer)");
    struct Args {
      std::string task, platform = "cpu-x86_64", kernel, cases, keep;
      bool sanitize = false, no_counters = false, no_time = false, json = false, no_isolate = false;
      double timeout = 600;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("task", a->task, "task id")->required();
    cmd->add_option("--kernel,-k", a->kernel, "candidate source file")->required();
    cmd->add_option("--platform,-p", a->platform, "platform name")->capture_default_str();
    cmd->add_option("--cases", a->cases, "case glob (profilers: first match; sanitizer: every match)");
    cmd->add_flag("--sanitize", a->sanitize, "also run the correctness cases under the platform's sanitizer");
    cmd->add_flag("--no-counters,--no-ncu", a->no_counters, "skip the profilers (with --sanitize: the sanitizer only)");
    cmd->add_flag("--no-time", a->no_time, "skip the timed evaluation that places the kernel on the roofline");
    cmd->add_option("--keep", a->keep, "copy the work folder (builds, replays, raw tool output) here");
    cmd->add_flag("--no-isolate", a->no_isolate, "run the tools without the runner's namespaces and unprivileged user");
    cmd->add_option("--timeout", a->timeout, "seconds allowed per tool run")->capture_default_str();
    cmd->add_flag("--json", a->json, "print the result as one JSON object");
    cmd->callback([a, &exit_code] {
      auto report = load_all_tasks(tasks_root());
      const Task* t = find_task(report.tasks, a->task);
      if (!t) {
        std::cerr << "error: unknown task '" << a->task << "' (see `kgb tasks`)\n";
        exit_code = kExitUsage;
        return;
      }
      auto p = load_platform(a->platform);
      if (!p) {
        std::cerr << "error: " << p.error().message << "\n";
        exit_code = kExitUsage;
        return;
      }
      std::ifstream in(a->kernel, std::ios::binary);
      if (!in) {
        std::cerr << "error: cannot read kernel file '" << a->kernel << "'\n";
        exit_code = kExitUsage;
        return;
      }
      std::ostringstream src;
      src << in.rdbuf();
      auto avail = check_availability(*p);
      if (!avail.available) {
        std::cerr << "error: platform " << p->name << " is not available here: " << avail.reason << "\n";
        exit_code = kExitInfrastructure;
        return;
      }
      profile::ProfileOptions options;
      options.case_filter = a->cases;
      options.sanitize = a->sanitize;
      options.counters = !a->no_counters;
      options.isolate = !a->no_isolate;
      options.timeout_seconds = a->timeout;
      options.keep_dir = a->keep;
      profile::ProfileResult r = profile::profile_candidate(*t, *p, src.str(), options);
      // The roofline placement from a timed evaluation (the first summary line).
      if (!a->no_time && !a->no_counters && r.compiled && r.error.empty() && p->has("time")) {
        EvalOptions eval;
        eval.case_filter = a->cases;
        eval.seeds_per_case = 1;
        Verdict v = evaluate(*t, *p, src.str(), eval);
        if (v.passed()) profile::attach_timings(r, v);
        else r.notes.push_back("the timed evaluation did not pass (" + v.summary + "): no roofline placement");
      }
      if (a->json) std::cout << json(r).dump(2) << "\n";
      else print_profile_text(r);
      // 1: the candidate's fault (it does not compile, the sanitizer found an
      // error); 3: a tool, library or device is missing here.
      const bool compile_failed = !r.compiled && (!r.diagnostics.empty() || r.error == "the candidate does not compile");
      if (compile_failed || !r.findings.empty()) exit_code = kExitFailed;
      else if (!r.error.empty()) exit_code = kExitInfrastructure;
      else exit_code = kExitOk;
    });
  }
  // kgb calibrate
  {
    auto* cmd = app.add_subcommand("calibrate", "measure a platform's memory bandwidth and FMA throughput for the roofline floor");
    auto platform = std::make_shared<std::string>("cpu-x86_64");
    auto as_json = std::make_shared<bool>(false);
    cmd->add_option("--platform,-p", *platform, "platform name")->capture_default_str();
    cmd->add_flag("--json", *as_json, "print the stored calibration as JSON");
    cmd->callback([platform, as_json, &exit_code] {
      auto p = load_platform(*platform);
      if (!p) {
        std::cerr << "error: " << p.error().message << "\n";
        exit_code = kExitUsage;
        return;
      }
      auto avail = check_availability(*p);
      if (!avail.available) {
        std::cerr << "error: platform " << p->name << " is not available here: " << avail.reason << "\n";
        exit_code = kExitInfrastructure;
        return;
      }
      const PlatformPeak before = p->peak;
      auto measured = profile::run_calibration(*p);
      if (!measured) {
        std::cerr << "error: " << measured.error().message << "\n";
        exit_code = measured.error().code == "calibrate.none" ? kExitUsage : kExitInfrastructure;
        return;
      }
      if (*as_json) {
        std::cout << measured->dump(2) << "\n";
      } else {
        auto reloaded = load_platform(*platform);
        std::cout << "calibrated " << p->name << " on " << measured->value("device", std::string("?")) << "\n";
        if (measured->contains("measured"))
          for (auto& [k, v] : (*measured)["measured"].items()) std::cout << "  measured " << k << ": " << v.dump() << "\n";
        if (reloaded) {
          std::printf("  roofline peak now: bandwidth %.1f GB/s (was %.0f%s), fp32 %.1f GFLOP/s (was %.0f), fp64 %.1f, fp16 %.1f%s\n",
                      reloaded->peak.bandwidth_gbs, before.bandwidth_gbs, before.per_core ? " per core" : "", reloaded->peak.gflops_fp32,
                      before.gflops_fp32, reloaded->peak.gflops_fp64, reloaded->peak.gflops_fp16,
                      reloaded->peak.per_core ? " (per core)" : "");
        }
        std::cout << "  stored in " << calibration_file(p->name).string() << "\n";
      }
      exit_code = kExitOk;
    });
  }
}

}  // namespace kgb::cli
