// The evaluation commands: tasks, show, eval, validate, platforms.
#include "eval_commands.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster_jobs.h"
#include "exit_codes.h"
#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/task.h"
#include "kgb/task_text.h"
#include "kgb/verdict.h"

namespace kgb::cli {
namespace {

using nlohmann::json;

// Loads every task, printing (not failing on) the ones that do not load.
std::vector<Task> load_tasks_reporting() {
  auto report = load_all_tasks(tasks_root());
  for (const auto& e : report.errors) std::cerr << "warning: task not loaded: " << e.message << "\n";
  return report.tasks;
}

const Task* find_task(const std::vector<Task>& tasks, const std::string& id) {
  for (const auto& t : tasks)
    if (t.id == id) return &t;
  return nullptr;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string format_us(double us) {
  if (us <= 0) return "-";
  if (us >= 1e6) return fixed(us / 1e6, 2) + " s";
  if (us >= 1e3) return fixed(us / 1e3, 3) + " ms";
  return fixed(us, 1) + " us";
}

void print_verdict_text(const Verdict& v) {
  std::cout << "task:      " << v.task << "\n"
            << "platform:  " << v.platform << "\n"
            << "outcome:   " << outcome_name(v.outcome) << " (stage reached: " << stage_name(v.stage) << ")\n"
            << "summary:   " << v.summary << "\n";
  if (!v.diagnostics.empty()) {
    std::cout << "diagnostics:\n";
    size_t shown = 0;
    for (const auto& d : v.diagnostics) {
      if (++shown > 20) {
        std::cout << "  ... " << v.diagnostics.size() - 20 << " more\n";
        break;
      }
      std::cout << "  " << (d.file.empty() ? "" : d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": ")
                << d.severity << ": " << d.message << "\n";
    }
  }
  if (!v.findings.empty()) {
    std::cout << "findings:\n";
    for (const auto& f : v.findings)
      std::cout << "  [" << f.severity << "] " << f.layer << " " << f.rule << " (" << f.location << "): " << f.message << "\n";
  }
  size_t failed = 0;
  for (const auto& c : v.cases)
    if (!c.passed) {
      if (++failed <= 10)
        std::cout << "  FAIL " << c.name << "/" << c.dtype << "#" << c.seed_index << " [" << c.status << "] " << c.message << "\n";
    }
  if (!v.cases.empty())
    std::cout << "cases:     " << v.cases.size() - failed << "/" << v.cases.size() << " passed\n";
  if (!v.timings.empty()) {
    std::cout << "timings:\n";
    for (const auto& t : v.timings) {
      std::cout << "  " << t.name << "/" << t.dtype << ": median " << format_us(t.candidate.median_us) << " (IQR "
                << format_us(t.candidate.iqr_us) << ", n=" << t.candidate.iterations << ", rse " << fixed(100 * t.candidate.rse, 2) << "%)";
      if (t.baseline)
      {
        std::cout << "; baseline " << t.baseline_kind << " " << format_us(t.baseline->median_us) << "; speedup " << fixed(t.speedup, 2) << "x";
        if (t.speedup_high > 0)
          std::cout << " [" << fixed(t.speedup_low, 2) << ", " << fixed(t.speedup_high, 2) << "] over " << t.speedup_pairs << " pairs"
                    << (t.speedup_unstable ? " (unstable: the interval is wide, the host is noisy)" : "");
      }
      else if (!t.baseline_kind.empty())
        std::cout << "; baseline " << t.baseline_kind;
      if (t.floor_us > 0) std::cout << "; " << fixed(100 * t.roofline_fraction, 1) << "% of roofline";
      if (!t.bound.empty())
        std::cout << "; " << fixed(t.achieved_gbs, 1) << " GB/s = " << fixed(100 * t.bandwidth_fraction, 1) << "% of peak bandwidth, "
                  << fixed(t.achieved_gflops, 1) << " GFLOP/s = " << fixed(100 * t.compute_fraction, 1) << "% of peak compute ("
                  << t.bound << "-bound)";
      std::cout << "\n";
    }
  }
  if (!v.child_stderr.empty()) std::cout << "kernel stderr (capped):\n" << v.child_stderr << "\n";
  std::cout << "seconds:   lint " << fixed(v.lint_seconds, 2) << ", compile " << fixed(v.compile_seconds, 2) << ", check "
            << fixed(v.check_seconds, 2) << ", time " << fixed(v.time_seconds, 2) << ", total " << fixed(v.total_seconds, 2) << "\n";
}

int exit_code_for(const Verdict& v) {
  if (v.outcome == Outcome::Passed) return kExitOk;
  if (v.outcome == Outcome::InfraError) return kExitInfrastructure;
  return kExitFailed;
}

struct EvalArgs {
  std::string task, platform = "cpu-x86_64", kernel, cases;
  bool json = false, no_time = false, no_baseline = false, no_lint = false;
  int64_t seed = -1;
  int seeds = 2;
  int timing_pairs = EvalOptions{}.timing_pairs;
  double time_budget = 1.0, check_timeout = 20;
};

void add_eval_options(CLI::App* cmd, EvalArgs& a) {
  cmd->add_option("--platform,-p", a.platform, "platform name (see `kgb platforms`)")->capture_default_str();
  cmd->add_flag("--json", a.json, "print the result as one JSON object");
  cmd->add_flag("--no-time", a.no_time, "check correctness only");
  cmd->add_flag("--no-baseline", a.no_baseline, "do not time the baseline");
  cmd->add_flag("--no-lint", a.no_lint, "skip the static checks");
  cmd->add_option("--seed", a.seed, "fixed input seed (default: a secret random seed per run)");
  cmd->add_option("--seeds", a.seeds, "input seeds per correctness case")->capture_default_str();
  cmd->add_option("--cases", a.cases, "only cases whose name matches this glob");
  cmd->add_option("--time-budget", a.time_budget, "seconds of timed iterations per performance case")->capture_default_str();
  cmd->add_option("--check-timeout", a.check_timeout, "seconds allowed per correctness run")->capture_default_str();
  cmd->add_option("--timing-pairs", a.timing_pairs,
                  "candidate and baseline are timed in this many interleaved pairs of blocks (1: each once, one after the other)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
}

EvalOptions options_from(const EvalArgs& a) {
  EvalOptions o;
  o.time = !a.no_time;
  o.baseline = !a.no_baseline;
  o.lint = !a.no_lint;
  if (a.seed >= 0) o.seed = static_cast<uint64_t>(a.seed);
  o.seeds_per_case = std::max(1, a.seeds);
  o.case_filter = a.cases;
  o.time_budget_seconds = a.time_budget;
  o.check_timeout_seconds = a.check_timeout;
  o.timing_pairs = a.timing_pairs;
  return o;
}


// `kgb new-task`: the files of a task that loads, and fails clearly until written.
std::string new_task_spec(const std::string& id, const std::string& source, const std::string& name) {
  std::string upstream = source == "aten" ? "aten::" + name : source == "vllm" ? "vllm13::" + name : "";
  std::string baseline = source == "aten" ? "aten" : source == "blas" ? "openblas" : "plain";
  std::ostringstream os;
  os << "{\n"
     << "  \"id\": \"" << id << "\",\n"
     << "  \"upstream_name\": \"" << upstream << "\",\n"
     << "  \"overload\": \"\",\n"
     << "  \"summary\": \"TODO: one line: what the operator computes\",\n"
     << "  \"description\": \"TODO: written for a model: exact semantics, edge cases, dtypes and how each is computed, layouts (strided views; "
        "write exactly the elements of each output view), what is checked.\",\n"
     << "  \"type_variables\": {\"T\": [\"f32\", \"f16\", \"bf16\"]},\n"
     << "  \"params\": [\n"
     << "    {\"name\": \"self\", \"tensor\": \"input\", \"dtype\": \"T\", \"shape\": [\"M\", \"N\"], \"description\": \"TODO\"},\n"
     << "    {\"name\": \"out\", \"tensor\": \"output\", \"dtype\": \"T\", \"shape\": [\"M\", \"N\"]}\n"
     << "  ],\n"
     << "  \"correctness\": [\n"
     << "    {\"name\": \"odd\", \"dims\": {\"M\": 7, \"N\": 33}},\n"
     << "    {\"name\": \"transposed_in_padded_out\", \"dims\": {\"M\": 9, \"N\": 17}, \"layouts\": {\"self\": {\"kind\": \"transposed\"}, "
        "\"out\": {\"kind\": \"contiguous\", \"pad\": 3}}},\n"
     << "    {\"name\": \"empty\", \"dims\": {\"M\": 0, \"N\": 8}}\n"
     << "  ],\n"
     << "  \"performance\": [\n"
     << "    {\"name\": \"4096x4096\", \"dims\": {\"M\": 4096, \"N\": 4096}, \"dtypes\": [\"f32\"], \"cpu\": true}\n"
     << "  ],\n"
     << "  \"extended\": [],\n"
     << "  \"tolerance\": {\"reduction\": \"1\"},\n"
     << "  \"check\": \"elementwise\",\n"
     << "  \"outputs\": {},\n"
     << "  \"deterministic\": true,\n"
     << "  \"device_work\": \"kernel\",\n"
     << "  \"timing\": \"device\",\n"
     << "  \"flops\": \"numel(out)\",\n"
     << "  \"bytes\": \"2 * numel(out) * elem\",\n"
     << "  \"banned_apis\": [],\n"
     << "  \"baseline\": \"" << baseline << "\"\n"
     << "}\n";
  return os.str();
}

std::string new_task_reference(const std::string& id) {
  return "// Reference for " + id + ": fp64 (or exact integer) ground truth on logical indices, rounded once\n"
         "// into the output dtype at the original kernel's rounding points (docs/task-format.md).\n"
         "#include <stdexcept>\n\n#include \"kgb/reference.h\"\n#include \"kgb/tensor.h\"\n\nnamespace {\n\n"
         "void reference(kgb::RefArgs& args) {\n"
         "  (void)args;\n"
         "  throw std::runtime_error(\"the reference of " + id + " is not written yet\");\n"
         "}\n\n}  // namespace\n\nKGB_REGISTER_REFERENCE(\"" + id + "\", reference);\n";
}

std::string new_task_solution(const std::string& id, const std::string& file, const std::string& declaration) {
  return "// The bundled " + file + " solution of " + id + ": a genuinely optimised kernel for its platform.\n"
         "// Its entry point:\n//   " + declaration + "\n"
         "#error \"" + id + ": solutions/" + file + " is not written yet (kgb new-task made this file)\"\n";
}
}  // namespace

void add_eval_commands(CLI::App& app, int& exit_code) {
  // kgb tasks
  {
    auto* cmd = app.add_subcommand("tasks", "list the benchmark's tasks");
    auto source = std::make_shared<std::string>();
    auto as_json = std::make_shared<bool>(false);
    cmd->add_option("--source", *source, "only tasks of this source (aten, vllm, blas, ...)");
    cmd->add_flag("--json", *as_json, "print JSON");
    cmd->callback([source, as_json, &exit_code] {
      auto tasks = load_tasks_reporting();
      json out = json::array();
      for (const auto& t : tasks) {
        if (!source->empty() && t.source != *source) continue;
        if (*as_json) {
          std::vector<std::string> dts;
          for (auto d : t.dtypes) dts.emplace_back(dtype_name(d));
          out.push_back({{"id", t.id}, {"source", t.source}, {"summary", t.summary}, {"entry", t.entry}, {"dtypes", dts},
                         {"correctness_cases", t.correctness.size()}, {"performance_cases", t.performance.size()},
                         {"baseline", t.baseline}, {"declaration", entry_declaration(t)}});
        } else {
          std::printf("%-24s %s\n", t.id.c_str(), t.summary.c_str());
        }
      }
      if (*as_json) std::cout << out.dump(2) << "\n";
      exit_code = kExitOk;
    });
  }
  // kgb show
  {
    auto* cmd = app.add_subcommand("show", "print exactly what a model is shown for a task on a platform");
    auto task_id = std::make_shared<std::string>();
    auto platform = std::make_shared<std::string>("cpu-x86_64");
    cmd->add_option("task", *task_id, "task id, e.g. aten/softmax")->required();
    cmd->add_option("--platform,-p", *platform, "platform name")->capture_default_str();
    cmd->callback([task_id, platform, &exit_code] {
      auto tasks = load_tasks_reporting();
      const Task* t = find_task(tasks, *task_id);
      if (!t) {
        std::cerr << "error: unknown task '" << *task_id << "' (see `kgb tasks`)\n";
        exit_code = kExitUsage;
        return;
      }
      auto p = load_platform(*platform);
      if (!p) {
        std::cerr << "error: " << p.error().message << "\n";
        exit_code = kExitUsage;
        return;
      }
      std::cout << render_task_statement(*t, *p);
      exit_code = kExitOk;
    });
  }
  // kgb eval
  {
    auto* cmd = app.add_subcommand("eval", "lint, compile, check and time one candidate kernel");
    auto args = std::make_shared<EvalArgs>();
    cmd->add_option("task", args->task, "task id")->required();
    cmd->add_option("--kernel,-k", args->kernel, "candidate source file")->required();
    add_eval_options(cmd, *args);
    cmd->callback([args, &exit_code] {
      auto tasks = load_tasks_reporting();
      const Task* t = find_task(tasks, args->task);
      if (!t) {
        std::cerr << "error: unknown task '" << args->task << "' (see `kgb tasks`)\n";
        exit_code = kExitUsage;
        return;
      }
      auto p = load_platform(args->platform);
      if (!p) {
        std::cerr << "error: " << p.error().message << "\n";
        exit_code = kExitUsage;
        return;
      }
      std::ifstream in(args->kernel, std::ios::binary);
      if (!in) {
        std::cerr << "error: cannot read kernel file '" << args->kernel << "'\n";
        exit_code = kExitUsage;
        return;
      }
      std::ostringstream src;
      src << in.rdbuf();
      // Without the platform's device the candidate still gets lint and its
      // compiler, the way a compile-only platform does, and the verdict says
      // why nothing ran.
      Platform target = *p;
      auto avail = check_availability(target);
      if (!avail.available) {
        std::erase(target.capabilities, std::string("run"));
        std::erase(target.capabilities, std::string("time"));
        std::cerr << "note: platform " << p->name << " is not available here (" << avail.reason
                  << "): compiling only\n";
      }
      Verdict v = evaluate(*t, target, src.str(), options_from(*args));
      if (!avail.available && v.outcome == Outcome::Passed)
        v.summary = "compiled; not run: platform " + p->name + " is not available here (" + avail.reason + ")";
      if (args->json) std::cout << json(v).dump(2) << "\n";
      else print_verdict_text(v);
      exit_code = exit_code_for(v);
    });
  }
  // kgb validate
  {
    auto* cmd = app.add_subcommand("validate", "check every task: sane reference, and the bundled solution passes clean");
    auto args = std::make_shared<EvalArgs>();
    auto glob = std::make_shared<std::string>();
    cmd->add_option("--tasks,-t", *glob, "task id glob(s), comma-separated (default: all)");
    add_eval_options(cmd, *args);
    auto cluster = std::make_shared<ClusterArgs>();
    add_cluster_options(cmd, *cluster);
    cmd->callback([=, &exit_code] {
      const auto cluster_args = cluster_for_command(*cluster, exit_code);
      if (!cluster_args) return;
      const bool on_cluster = cluster_args->slurm();
      auto all = load_all_tasks(tasks_root());
      auto p = load_platform(args->platform);
      if (!p) {
        std::cerr << "error: " << p.error().message << "\n";
        exit_code = kExitUsage;
        return;
      }
      // On a cluster the nodes have the platform; each job says so when one does not.
      auto avail = check_availability(*p);
      if (!avail.available && !on_cluster) {
        std::cerr << "error: platform " << p->name << " is not available here: " << avail.reason << "\n";
        exit_code = kExitInfrastructure;
        return;
      }
      auto tasks = filter_tasks(all.tasks, *glob);
      // A filter that matches nothing is a typo, not a passing validation.
      if (tasks.empty() && !glob->empty()) {
        std::cerr << "error: no task matches '" << *glob << "' (see `kgb tasks`)\n";
        exit_code = kExitUsage;
        return;
      }
      EvalOptions opts = options_from(*args);
      json out = json::array();
      int failures = 0;
      if (!args->json)
        std::printf("%-22s %-8s %6s %12s %12s %9s %9s  %s\n", "task", "status", "cases", "baseline", "solution", "speedup",
                    "roofline", on_cluster ? "where, notes" : "notes");
      for (const auto& e : all.errors) {
        ++failures;
        if (args->json) out.push_back({{"task", nullptr}, {"passed", false}, {"problems", {e.message}}});
        else std::printf("%-22s %-8s %s\n", "(load error)", "FAIL", e.message.c_str());
      }
      // One row per task, printed in task order; `where` is set for rows from the cluster.
      auto print_row = [&](const Task& t, const TaskValidation& tv, const json* where, const std::string& where_text) {
        if (!tv.passed) ++failures;
        if (args->json) {
          json j{{"task", tv.task}, {"passed", tv.passed}, {"problems", tv.problems}, {"gaps", tv.gaps}};
          if (tv.solution) j["verdict"] = *tv.solution;
          if (where) j["placement"] = *where;
          out.push_back(j);
          return;
        }
        size_t passed_cases = 0, cases = 0;
        double base = 0, sol = 0, roof = 0;
        if (tv.solution) {
          cases = tv.solution->cases.size();
          for (const auto& c : tv.solution->cases) passed_cases += c.passed;
          // The largest performance case stands for the task in the table.
          for (const auto& tm : tv.solution->timings) {
            if (tm.candidate.median_us > sol) {
              sol = tm.candidate.median_us;
              base = tm.baseline ? tm.baseline->median_us : 0;
              roof = tm.roofline_fraction;
            }
          }
        }
        std::string notes = tv.problems.empty() ? "" : tv.problems.front();
        if (notes.size() > 100) notes = notes.substr(0, 97) + "...";
        if (where) notes = where_text + (notes.empty() ? "" : "; " + notes);
        std::string speedup = tv.solution && tv.solution->speedup > 0 ? fixed(tv.solution->speedup, 2) + "x" : "-";
        std::string roofline = roof > 0 ? fixed(100 * roof, 1) + "%" : "-";
        std::printf("%-22s %-8s %6s %12s %12s %9s %9s  %s\n", t.id.c_str(), tv.passed ? "PASS" : "FAIL",
                    (std::to_string(passed_cases) + "/" + std::to_string(cases)).c_str(), format_us(base).c_str(),
                    format_us(sol).c_str(), speedup.c_str(), roofline.c_str(), notes.c_str());
        for (const auto& g : tv.gaps) std::printf("%-22s %-8s %s\n", "", "lacks", g.c_str());
        std::fflush(stdout);
      };
      if (!on_cluster) {
        for (const auto& t : tasks) print_row(t, validate_task(t, *p, opts), nullptr, "");
      } else {
        std::vector<jobs::JobRequest> requests;
        for (const auto& t : tasks) {
          jobs::JobRequest r;
          r.key = jobs::sanitize_job_key("validate-" + t.id);
          r.kind = jobs::JobKind::Validate;
          r.task = t.id;
          r.platform = p->name;
          r.options = opts;
          requests.push_back(std::move(r));
        }
        // Replies come in any order; rows go out in task order as soon as they can.
        std::vector<std::optional<jobs::JobReply>> replies(tasks.size());
        size_t next = 0;
        auto on_reply = [&](size_t i, const jobs::JobReply& reply) {
          replies[i] = reply;
          for (; next < tasks.size() && replies[next]; ++next) {
            const auto& r = *replies[next];
            TaskValidation tv;
            if (r.completed) {
              tv = jobs::validation_from_json(r.payload);
            } else {
              tv.task = tasks[next].id;
              tv.problems.push_back("the validation job did not complete: " + r.error);
            }
            const json where = placement_json(r);
            print_row(tasks[next], tv, &where, placement_text(r));
          }
        };
        if (auto s = run_on_cluster(std::move(requests), *cluster_args, "validate", on_reply); !s) {
          std::cerr << "error: " << s.error().message << "\n";
          exit_code = s.error().code.rfind("config.", 0) == 0 ? kExitUsage : kExitInfrastructure;
          return;
        }
      }
      if (args->json) std::cout << out.dump(2) << "\n";
      else std::printf("\n%zu task(s) on %s: %zu passed, %d failed\n", tasks.size(), p->name.c_str(),
                       tasks.size() + all.errors.size() - failures, failures);
      exit_code = failures ? kExitFailed : kExitOk;
    });
  }
  // kgb new-task
  {
    auto* cmd = app.add_subcommand("new-task", "write the skeleton of a task: a spec with every field, a reference that "
                                               "registers itself, solutions per backend that fail clearly until written");
    auto id = std::make_shared<std::string>();
    auto root = std::make_shared<std::string>();
    cmd->add_option("id", *id, "<source>/<name>, e.g. aten/frac")->required();
    cmd->add_option("--root", *root, "tasks folder (default: the source tree's benchmark/tasks)");
    cmd->callback([=, &exit_code] {
      const auto slash = id->find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == id->size() || id->find('/', slash + 1) != std::string::npos) {
        std::cerr << "error: expected <source>/<name>, found '" << *id << "'\n";
        exit_code = kExitUsage;
        return;
      }
      const std::string source = id->substr(0, slash), name = id->substr(slash + 1);
      const std::filesystem::path folder = (root->empty() ? tasks_root() : std::filesystem::path(*root)) / source / name;
      if (std::filesystem::exists(folder)) {
        std::cerr << "error: " << folder.string() << " exists already\n";
        exit_code = kExitUsage;
        return;
      }
      std::error_code ec;
      std::filesystem::create_directories(folder / "solutions", ec);
      if (ec) {
        std::cerr << "error: cannot create " << folder.string() << ": " << ec.message() << "\n";
        exit_code = kExitInfrastructure;
        return;
      }
      const std::string spec_text = new_task_spec(*id, source, name);
      auto task = load_task_text(spec_text, folder / "spec.json");
      if (!task) {  // an id the loader refuses (characters, reserved names)
        std::cerr << "error: " << task.error().message << "\n";
        std::filesystem::remove_all(folder, ec);
        exit_code = kExitUsage;
        return;
      }
      std::ofstream(folder / "spec.json") << spec_text;
      std::ofstream(folder / "reference.cpp") << new_task_reference(*id);
      const std::string declaration = entry_declaration(*task);
      for (const char* file : {"cpu.cpp", "cuda.cu", "opencl.cpp", "hip.hip"})
        std::ofstream(folder / "solutions" / file) << new_task_solution(*id, file, declaration);
      std::cout << "wrote " << folder.string() << ": spec.json, reference.cpp, solutions/{cpu.cpp,cuda.cu,opencl.cpp,hip.hip}\n"
                << "next: write the spec and the reference, rebuild (the reference is compiled into kgb), then\n"
                << "  kgb validate --tasks " << *id << " --platform cpu-x86_64   # lists what the task still lacks\n";
      exit_code = kExitOk;
    });
  }
  // kgb platforms
  {
    auto* cmd = app.add_subcommand("platforms", "list platforms, their capabilities and whether they are available here");
    auto as_json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *as_json, "print JSON");
    cmd->callback([as_json, &exit_code] {
      std::vector<Error> errors;
      auto platforms = load_all_platforms(&errors);
      json out = json::array();
      for (const auto& p : platforms) {
        auto a = check_availability(p);
        std::string caps;
        for (const auto& c : p.capabilities) caps += (caps.empty() ? "" : ",") + c;
        if (*as_json) {
          out.push_back({{"name", p.name}, {"backend", p.backend}, {"arch", p.arch}, {"capabilities", p.capabilities},
                         {"available", a.available}, {"reason", a.reason}});
        } else {
          std::printf("%-16s %-7s %-9s %-22s %s\n", p.name.c_str(), p.backend.c_str(), p.arch.c_str(), caps.c_str(),
                      a.available ? ("available" + (a.reason.empty() ? "" : " (" + a.reason + ")")).c_str()
                                  : ("unavailable: " + a.reason).c_str());
        }
      }
      for (const auto& e : errors) std::cerr << "warning: " << e.message << "\n";
      if (*as_json) std::cout << out.dump(2) << "\n";
      exit_code = kExitOk;
    });
  }
}

}  // namespace kgb::cli
