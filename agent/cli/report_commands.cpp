// kgb report: reads runs from the run store and prints their metrics side by
// side (terminal table, Markdown, JSON) or writes one self-contained HTML file
// with charts and a per-task drill-down. The metric definitions are the
// command's help footer.
#include "report_commands.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

#include "exit_codes.h"
#include "kgb/report/definitions.h"
#include "kgb/report/loader.h"
#include "kgb/report/render.h"
#include "kgb/report/report.h"

namespace kgb::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> runs;
  std::string store = "kgb-runs.db", format = "table", out, reference_platform;
  bool all = false;
  bool exclude_unstable = false;
};

int report_command(const ReportArgs& a) {
  const auto format = report::format_from_name(a.format);
  if (!format) {
    std::cerr << "kgb report: unknown format '" << a.format << "' (table, markdown, json, html)\n";
    return kExitUsage;
  }
  std::vector<std::string> ids = a.runs;
  if (a.all) {
    auto listed = report::list_run_ids(a.store);
    if (!listed) {
      std::cerr << "kgb report: " << listed.error().message << "\n";
      return listed.error().code == "report.no-store" ? kExitUsage : kExitInfrastructure;
    }
    for (const auto& id : *listed)
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  if (ids.empty()) {
    std::cerr << "kgb report: name at least one run (kgb runs --store " << a.store << " lists them), or --all\n";
    return kExitUsage;
  }
  std::set<std::string> seen;
  for (const auto& id : ids)
    if (!seen.insert(id).second) {
      std::cerr << "kgb report: run " << id << " is named twice\n";
      return kExitUsage;
    }
  auto runs = report::load_runs(a.store, ids);
  if (!runs) {
    std::cerr << "kgb report: " << runs.error().message << "\n";
    const std::string& code = runs.error().code;
    return code == "report.no-store" || code == "store.unknown-run" ? kExitUsage : kExitInfrastructure;
  }
  report::ReportOptions options;
  options.reference_platform = a.reference_platform;
  options.exclude_unstable = a.exclude_unstable;
  options.store_file = a.store;
  auto built = report::build_report(std::move(runs.value()), options);
  if (!built) {
    std::cerr << "kgb report: " << built.error().message << "\n";
    return kExitUsage;
  }
  const std::string text = report::render(*built, *format);
  if (a.out.empty()) {
    std::cout << text << std::flush;
    return kExitOk;
  }
  std::ofstream file(a.out, std::ios::binary);
  file << text;
  file.close();
  if (!file) {
    std::cerr << "kgb report: cannot write " << a.out << "\n";
    return kExitInfrastructure;
  }
  std::cerr << "wrote " << a.out << " (" << text.size() << " bytes)\n";
  return kExitOk;
}

}  // namespace

void add_report_commands(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "metrics of recorded runs side by side: accuracy, pass@k, speedup, fast_p, cost, time, portability, budget curves");
  cmd->add_option("runs", args->runs, "run ids (kgb runs lists them); the first is the one the others are compared with");
  cmd->add_flag("--all", args->all, "every run of the store, oldest first");
  cmd->add_option("--store", args->store, "run store file")->capture_default_str();
  cmd->add_option("--format,-f", args->format, "table | markdown | json | html")
      ->check(CLI::IsMember({"table", "markdown", "md", "json", "html"}))
      ->capture_default_str();
  cmd->add_option("--out,-o", args->out, "write to this file instead of standard output");
  cmd->add_flag("--exclude-unstable", args->exclude_unstable,
                "leave performance cases whose speedup interval the harness flagged as wide out of every speedup figure");
  cmd->add_option("--reference-platform", args->reference_platform,
                  "platform the portability section compares against (default: each configuration's first run's platform)");
  cmd->footer("Metrics:\n" + report::definitions_text(100));
  cmd->callback([args, &exit_code] { exit_code = report_command(*args); });
}

}  // namespace kgb::cli
