// kgb portability: evaluates the same kernel sources on several platforms and
// reports, per task, on which platforms they are correct, the speedup on each,
// and the performance-portability metric.
//
// Kernels: the bundled solution of each platform (solutions/<solution_file>),
// or with --kernels DIR the file DIR/<source>/<name>/<solution_file>, so
// platforms of one backend (opencl-pocl and opencl-nvidia, or the cpu-*
// platforms) evaluate the very same source.
//
// Performance portability (Pennycook et al.): the harmonic mean of the
// per-platform efficiencies, and 0 when the kernel fails on any platform.
// Efficiency of a platform is, by default, the candidate's speedup over that
// platform's own baseline (the geometric mean over the performance cases);
// with --efficiency roofline it is the fraction of the roofline floor reached
// (geometric mean over the cases). Platforms that cannot time (emulated,
// compile-only) take part in correctness only: a failure there still makes
// the metric 0, a pass adds no term to the mean. With no timed platform the
// metric is not defined ("-").
#include "portability_commands.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster_jobs.h"
#include "exit_codes.h"
#include "portability_metric.h"
#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"
#include "kgb/verdict.h"

namespace kgb::cli {
namespace {

using nlohmann::json;

struct PortabilityArgs {
  std::string platforms, tasks, kernels, efficiency = "speedup";
  bool json = false, no_time = false, no_lint = false, skip_unavailable = false;
  int64_t seed = -1;
  int seeds = 1;
  double time_budget = 1.0, check_timeout = 30;
};

struct Cell {
  std::string platform;
  std::string status;              // "pass", "fail", "no-kernel", "compiled"
  std::string detail;              // outcome and summary when not passed
  bool passed = false;
  bool timed = false;              // the platform produced timings
  std::optional<double> speedup;   // geometric mean over the performance cases
  std::optional<double> roofline;  // geometric mean of the roofline fractions
  std::optional<double> efficiency;
  std::string where;               // the cluster: node (partition, job)
  nlohmann::json placement;        // the same, for --json
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::optional<double> geomean(const std::vector<double>& xs) {
  double log_sum = 0;
  int n = 0;
  for (double x : xs)
    if (x > 0) {
      log_sum += std::log(x);
      ++n;
    }
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / n);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::optional<std::string> read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// The kernel a platform evaluates for a task: its bundled solution, or the
// file under --kernels.
std::optional<std::string> cell_source(const Task& task, const Platform& platform, const PortabilityArgs& args) {
  if (args.kernels.empty()) {
    auto bundled = bundled_solution(task, platform.solution_file);
    if (bundled) return *bundled;
    return std::nullopt;
  }
  return read_text(std::filesystem::path(args.kernels) / task.source / task.name / platform.solution_file);
}

Cell no_kernel_cell(const Platform& platform) {
  Cell cell;
  cell.platform = platform.name;
  cell.status = "no-kernel";
  cell.detail = "no " + platform.solution_file + " for this task";
  return cell;
}

Cell cell_from_verdict(const Platform& platform, const Verdict& v, const PortabilityArgs& args) {
  Cell cell;
  cell.platform = platform.name;
  cell.passed = v.passed();
  if (!cell.passed) {
    cell.status = "fail";
    cell.detail = std::string(outcome_name(v.outcome)) + ": " + v.summary;
    return cell;
  }
  cell.status = platform.has("run") ? "pass" : "compiled";
  std::vector<double> speedups, fractions;
  for (const auto& t : v.timings) {
    if (t.speedup > 0) speedups.push_back(t.speedup);
    if (t.roofline_fraction > 0) fractions.push_back(t.roofline_fraction);
  }
  cell.timed = !v.timings.empty();
  cell.speedup = geomean(speedups);
  cell.roofline = geomean(fractions);
  cell.efficiency = args.efficiency == "roofline" ? cell.roofline : cell.speedup;
  return cell;
}

Cell evaluate_cell(const Task& task, const Platform& platform, const PortabilityArgs& args, const EvalOptions& options) {
  auto source = cell_source(task, platform, args);
  if (!source) return no_kernel_cell(platform);
  return cell_from_verdict(platform, evaluate(task, platform, *source, options), args);
}

// Every (task, platform) cell as a job on the cluster, each platform on its
// own partition; cells without a kernel are filled in here.
Result<std::vector<std::vector<Cell>>> evaluate_on_cluster(const std::vector<Task>& tasks,
                                                           const std::vector<Platform>& platforms,
                                                           const PortabilityArgs& args, const EvalOptions& options,
                                                           const ClusterArgs& cluster) {
  std::vector<std::vector<Cell>> cells(tasks.size(), std::vector<Cell>(platforms.size()));
  std::vector<jobs::JobRequest> requests;
  std::vector<std::pair<size_t, size_t>> where;  // request -> (task, platform)
  for (size_t t = 0; t < tasks.size(); ++t)
    for (size_t p = 0; p < platforms.size(); ++p) {
      auto source = cell_source(tasks[t], platforms[p], args);
      if (!source) {
        cells[t][p] = no_kernel_cell(platforms[p]);
        continue;
      }
      jobs::JobRequest r;
      r.key = jobs::sanitize_job_key("portability-" + tasks[t].id + "-" + platforms[p].name);
      r.kind = jobs::JobKind::Evaluate;
      r.task = tasks[t].id;
      r.platform = platforms[p].name;
      r.source = *source;
      r.options = options;
      requests.push_back(std::move(r));
      where.emplace_back(t, p);
    }
  auto on_reply = [&](size_t i, const jobs::JobReply& reply) {
    const auto [t, p] = where[i];
    Cell cell;
    if (reply.completed) {
      Verdict v;
      from_json(reply.payload, v);
      cell = cell_from_verdict(platforms[p], v, args);
    } else {
      cell.platform = platforms[p].name;
      cell.status = "fail";
      cell.detail = "infra-error: the evaluation job did not complete: " + reply.error;
    }
    cell.where = placement_text(reply);
    cell.placement = placement_json(reply);
    cells[t][p] = std::move(cell);
  };
  if (auto s = run_on_cluster(std::move(requests), cluster, "portability", on_reply); !s) return s.error();
  return cells;
}

std::string cell_text(const Cell& c, const Platform& p) {
  if (c.status == "no-kernel") return "no kernel";
  if (c.status == "fail") return "FAIL";
  if (c.status == "compiled") return "compiles";
  std::string s = "ok";
  if (c.speedup) s += " " + fixed(*c.speedup, 2) + "x";
  else if (p.has("emulated")) s += " (emulated)";
  else if (!c.timed) s += " (untimed)";
  return s;
}

}  // namespace

void add_portability_commands(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("portability", "run the same kernels on several platforms: correctness, speedup per "
                                                "platform and the performance-portability metric");
  auto args = std::make_shared<PortabilityArgs>();
  cmd->add_option("--platforms,-p", args->platforms, "comma-separated platform names (see `kgb platforms`)")->required();
  cmd->add_option("--tasks,-t", args->tasks, "task id glob(s), comma-separated (default: all)");
  cmd->add_option("--kernels,-k", args->kernels,
                  "folder with <source>/<name>/<solution file> per task (default: the bundled solutions)");
  cmd->add_option("--efficiency", args->efficiency, "per-platform efficiency: speedup (over the platform's baseline) "
                                                    "or roofline (fraction of the roofline floor)")
      ->check(CLI::IsMember({"speedup", "roofline"}))
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->add_flag("--no-time", args->no_time, "correctness only (the metric is then undefined)");
  cmd->add_flag("--no-lint", args->no_lint, "skip the static checks");
  cmd->add_flag("--skip-unavailable", args->skip_unavailable, "leave out platforms not available here (with a warning)");
  cmd->add_option("--seed", args->seed, "fixed input seed (default: a secret random seed per run)");
  cmd->add_option("--seeds", args->seeds, "input seeds per correctness case")->capture_default_str();
  cmd->add_option("--time-budget", args->time_budget, "seconds of timed iterations per performance case")->capture_default_str();
  cmd->add_option("--check-timeout", args->check_timeout, "seconds allowed per correctness run")->capture_default_str();
  auto cluster = std::make_shared<ClusterArgs>();
  add_cluster_options(cmd, *cluster);
  cmd->callback([=, &exit_code] {
    const auto cluster_args = cluster_for_command(*cluster, exit_code);
    if (!cluster_args) return;
    const bool on_cluster = cluster_args->slurm();
    std::vector<Platform> platforms;
    for (const auto& name : split_commas(args->platforms)) {
      auto p = load_platform(name);
      if (!p) {
        std::cerr << "error: " << p.error().message << "\n";
        exit_code = kExitUsage;
        return;
      }
      // On a cluster the nodes have the platforms; each job says so when one does not.
      auto available = check_availability(*p);
      if (!available.available && !on_cluster) {
        if (args->skip_unavailable) {
          std::cerr << "warning: platform " << name << " left out: " << available.reason << "\n";
          continue;
        }
        std::cerr << "error: platform " << name << " is not available here: " << available.reason
                  << " (--skip-unavailable leaves it out)\n";
        exit_code = kExitInfrastructure;
        return;
      }
      platforms.push_back(std::move(*p));
    }
    if (platforms.empty()) {
      std::cerr << "error: no platform to run on\n";
      exit_code = kExitUsage;
      return;
    }
    auto all = load_all_tasks(tasks_root());
    for (const auto& e : all.errors) std::cerr << "warning: task not loaded: " << e.message << "\n";
    auto tasks = filter_tasks(all.tasks, args->tasks);
    if (tasks.empty()) {
      std::cerr << "error: no task matches '" << args->tasks << "'\n";
      exit_code = kExitUsage;
      return;
    }
    EvalOptions options;
    options.time = !args->no_time;
    options.lint = !args->no_lint;
    options.seeds_per_case = std::max(1, args->seeds);
    if (args->seed >= 0) options.seed = static_cast<uint64_t>(args->seed);
    options.time_budget_seconds = args->time_budget;
    options.check_timeout_seconds = args->check_timeout;

    if (!args->json) {
      std::printf("%-22s", "task");
      for (const auto& p : platforms) std::printf(" %-18s", p.name.c_str());
      std::printf(" %10s  %s\n", "perf-port", "correct on");
    }
    std::vector<std::vector<Cell>> cluster_cells;
    if (on_cluster) {
      auto cells = evaluate_on_cluster(tasks, platforms, *args, options, *cluster_args);
      if (!cells) {
        std::cerr << "error: " << cells.error().message << "\n";
        exit_code = cells.error().code.rfind("config.", 0) == 0 ? kExitUsage : kExitInfrastructure;
        return;
      }
      cluster_cells = std::move(cells.value());
    }
    json rows = json::array();
    int correct_everywhere = 0;
    double pp_sum = 0;
    int pp_count = 0;
    bool any_failure = false;
    for (size_t ti = 0; ti < tasks.size(); ++ti) {
      const Task& task = tasks[ti];
      std::vector<Cell> cells;
      if (on_cluster) cells = cluster_cells[ti];
      else
        for (const auto& p : platforms) cells.push_back(evaluate_cell(task, p, *args, options));
      std::vector<PlatformOutcome> outcomes;
      for (const auto& c : cells) outcomes.push_back({c.passed, c.efficiency});
      auto pp = performance_portability(outcomes);
      std::vector<std::string> correct_on;
      for (const auto& c : cells)
        if (c.passed) correct_on.push_back(c.platform);
      bool everywhere = correct_on.size() == cells.size();
      correct_everywhere += everywhere;
      any_failure = any_failure || !everywhere;
      if (pp) {
        pp_sum += *pp;
        ++pp_count;
      }
      if (args->json) {
        json per = json::object();
        for (const auto& c : cells) {
          json j{{"status", c.status}, {"passed", c.passed}, {"timed", c.timed}};
          j["speedup"] = c.speedup ? json(*c.speedup) : json(nullptr);
          j["roofline_fraction"] = c.roofline ? json(*c.roofline) : json(nullptr);
          j["efficiency"] = c.efficiency ? json(*c.efficiency) : json(nullptr);
          if (!c.detail.empty()) j["detail"] = c.detail;
          if (!c.placement.is_null()) j["placement"] = c.placement;
          per[c.platform] = j;
        }
        rows.push_back({{"task", task.id}, {"platforms", per}, {"correct_on", correct_on},
                        {"performance_portability", pp ? json(*pp) : json(nullptr)}});
        continue;
      }
      std::printf("%-22s", task.id.c_str());
      for (size_t i = 0; i < cells.size(); ++i) std::printf(" %-18s", cell_text(cells[i], platforms[i]).c_str());
      std::string on;
      for (const auto& name : correct_on) on += (on.empty() ? "" : ",") + name;
      std::printf(" %10s  %s\n", pp ? fixed(*pp, 3).c_str() : "-", on.empty() ? "(none)" : on.c_str());
      for (const auto& c : cells)
        if (!c.detail.empty() && c.status != "no-kernel")
          std::printf("    %s: %s\n", c.platform.c_str(), c.detail.substr(0, 200).c_str());
      for (const auto& c : cells)
        if (!c.where.empty()) std::printf("    %s ran on %s\n", c.platform.c_str(), c.where.c_str());
      std::fflush(stdout);
    }
    const double solved_rate = static_cast<double>(correct_everywhere) / static_cast<double>(tasks.size());
    if (args->json) {
      json platform_names = json::array();
      for (const auto& p : platforms) platform_names.push_back(p.name);
      json out{{"platforms", platform_names},
               {"efficiency", args->efficiency},
               {"tasks", rows},
               {"correct_on_all", correct_everywhere},
               {"correct_on_all_rate", solved_rate},
               {"mean_performance_portability", pp_count ? json(pp_sum / pp_count) : json(nullptr)}};
      std::cout << out.dump(2) << "\n";
    } else {
      std::printf("\n%d of %zu task(s) correct on every platform (%.1f%%)", correct_everywhere, tasks.size(),
                  100.0 * solved_rate);
      if (pp_count) std::printf("; mean performance portability %.3f over %d task(s)", pp_sum / pp_count, pp_count);
      std::printf("\nefficiency = %s; performance portability = harmonic mean of the efficiencies of the timed "
                  "platforms, 0 when any platform fails\n",
                  args->efficiency == "roofline" ? "fraction of the roofline floor" : "speedup over the platform's baseline");
    }
    exit_code = any_failure ? kExitFailed : kExitOk;
  });
}

}  // namespace kgb::cli
