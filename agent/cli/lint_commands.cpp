// kgb lint FILE --platform P [--task T] [--json]: the static stage on its own.
// kgb lint-symbols OBJECT --platform P [--json]: the undefined-symbol check.
// kgb lint-rules [--json]: the rule catalog with options and defaults.
#include "lint_commands.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exit_codes.h"
#include "kgb/evaluator.h"
#include "kgb/lint.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace kgb::cli {
namespace {

struct LintOptions {
  std::string file;
  std::string task;
  std::string platform;
  bool json = false;
  double time_limit = 10;
  std::vector<std::string> rule_options;  // rule.option=value
  bool in_process = false;
};

struct SymbolOptions {
  std::string object;
  std::string platform;
  bool json = false;
};

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  out = text.str();
  return true;
}

void print_excerpt(int line, const std::string& excerpt) {
  if (excerpt.empty()) return;
  std::cout << "  " << std::string(line < 10 ? 4 : line < 100 ? 3 : line < 1000 ? 2 : 1, ' ') << line << " | "
            << excerpt << "\n";
}

void print_report_text(const lint::LintReport& report) {
  for (const auto& d : report.diagnostics) {
    if (d.line > 0) std::cout << d.file << ":" << d.line << ":" << d.column << ": ";
    else if (!d.file.empty()) std::cout << d.file << ": ";
    std::cout << d.severity << ": " << d.message << "\n";
    if (d.severity != "note") print_excerpt(d.line, d.excerpt);
  }
  int rejects = 0, warnings = 0;
  for (const auto& f : report.findings) {
    (f.severity == "reject" ? rejects : warnings)++;
    std::cout << f.location << ": " << f.severity << " [" << f.rule << "] " << f.message << "\n";
    print_excerpt(f.line, f.excerpt);
    if (!f.fix_hint.empty()) std::cout << "  hint: " << f.fix_hint << "\n";
  }
  if (!report.infra_error.empty()) std::cout << "lint could not run: " << report.infra_error << "\n";
  int errors = 0;
  for (const auto& d : report.diagnostics) errors += d.severity == "error" || d.severity == "fatal";
  std::string passes;
  for (const auto& p : report.passes) passes += (passes.empty() ? "" : ", ") + p;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f", report.seconds);
  std::cout << "lint: " << (report.rejected() ? "rejected" : report.parse_ok ? "clean" : "parse errors") << " ("
            << rejects << " reject, " << warnings << " warn, " << errors << " parse errors) in " << seconds << " s"
            << (passes.empty() ? "" : " [" + passes + "]") << "\n";
}

int run_lint(const LintOptions& options) {
  auto platform = load_platform(options.platform);
  if (!platform) {
    std::cerr << "error: " << platform.error().message << "\n";
    return kExitUsage;
  }
  std::optional<Task> task;
  if (!options.task.empty()) {
    auto loaded = load_all_tasks(tasks_root());
    for (auto& t : loaded.tasks)
      if (t.id == options.task) task = std::move(t);
    if (!task) {
      std::cerr << "error: unknown task " << options.task << "\n";
      for (const auto& e : loaded.errors) std::cerr << "  (not loaded: " << e.message << ")\n";
      return kExitUsage;
    }
  }
  lint::LintRequest request;
  if (!read_file(options.file, request.source)) {
    std::cerr << "error: cannot read " << options.file << "\n";
    return kExitUsage;
  }
  request.file_name = options.file;
  // A .cl file is an OpenCL C program on its own; everything else follows the platform.
  const auto by_file = lint::language_for_file(options.file);
  request.language = by_file == lint::Language::OpenCLC ? *by_file : lint::language_for(*platform);
  request.task = task ? &*task : nullptr;
  request.platform = &*platform;
  request.time_limit_seconds = options.time_limit;
  request.isolation = options.in_process ? lint::Isolation::InProcess : lint::Isolation::Fork;
  for (const auto& option : options.rule_options) {
    const auto eq = option.find('=');
    if (eq == std::string::npos || option.find('.') > eq) {
      std::cerr << "error: --option expects rule.option=value, got " << option << "\n";
      return kExitUsage;
    }
    request.rule_options[option.substr(0, eq)] = option.substr(eq + 1);
  }

  const lint::LintReport report = lint::lint(request);
  if (options.json) {
    nlohmann::json j = report;
    j["file"] = options.file;
    j["platform"] = options.platform;
    j["task"] = options.task;
    std::cout << j.dump(2) << "\n";
  } else {
    print_report_text(report);
  }
  if (!report.infra_error.empty()) return kExitInfrastructure;
  return report.clean() ? kExitOk : kExitFailed;
}

int run_lint_symbols(const SymbolOptions& options) {
  auto platform = load_platform(options.platform);
  if (!platform) {
    std::cerr << "error: " << platform.error().message << "\n";
    return kExitUsage;
  }
  const lint::SymbolReport report = lint::inspect_object_symbols(options.object, *platform);
  if (options.json) {
    nlohmann::json j;
    j["object"] = options.object;
    j["platform"] = options.platform;
    j["readable"] = report.readable;
    j["error"] = report.error;
    auto names = [](const std::vector<lint::ObjectSymbol>& list) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& s : list) a.push_back({{"name", s.name}, {"demangled", s.demangled}, {"weak", s.weak}});
      return a;
    };
    j["undefined"] = names(report.undefined);
    j["defined"] = names(report.defined);
    j["findings"] = nlohmann::json::array();
    for (const auto& f : report.findings) {
      nlohmann::json one;
      to_json(one, f);
      j["findings"].push_back(one);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    for (const auto& f : report.findings)
      std::cout << f.location << ": " << f.severity << " [" << f.rule << "] " << f.message << "\n";
    std::cout << "lint-symbols: " << report.undefined.size() << " undefined, " << report.defined.size()
              << " defined, " << report.findings.size() << " findings\n";
  }
  if (!report.readable) return kExitUsage;
  return report.findings.empty() ? kExitOk : kExitFailed;
}

int run_lint_rules(bool json) {
  const auto catalog = lint::rule_catalog();
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& rule : catalog) {
      nlohmann::json options = nlohmann::json::array();
      for (const auto& o : rule.options)
        options.push_back({{"name", o.name}, {"default", o.default_value}, {"description", o.description}});
      j.push_back({{"name", rule.name},
                   {"description", rule.description},
                   {"default_severity", rule.default_severity},
                   {"options", options}});
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& rule : catalog) {
    std::cout << rule.name << " (" << rule.default_severity << ")\n  " << rule.description << "\n";
    for (const auto& o : rule.options)
      std::cout << "  --option " << rule.name << "." << o.name << "=" << (o.default_value.empty() ? "\"\"" : o.default_value)
                << "   " << o.description << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_lint_commands(CLI::App& app, int& exit_code) {
  set_default_eval_hooks(lint::eval_hooks());

  auto lint_options = std::make_shared<LintOptions>();
  CLI::App* lint = app.add_subcommand("lint", "Parse a candidate and run the static anti-cheating rules");
  lint->add_option("file", lint_options->file, "candidate source file")->required()->check(CLI::ExistingFile);
  lint->add_option("--platform,-p", lint_options->platform, "platform name, e.g. cuda-sm90")->required();
  lint->add_option("--task,-t", lint_options->task, "task id, e.g. aten/softmax (entry signature, banned APIs, dtypes)");
  lint->add_flag("--json", lint_options->json, "print the report as JSON");
  lint->add_option("--time-limit", lint_options->time_limit, "seconds before lint gives up (default 10)");
  lint->add_option("--option,-O", lint_options->rule_options, "rule option rule.option=value (see kgb lint-rules)");
  lint->add_flag("--in-process", lint_options->in_process, "parse in this process (no time limit; for debugging)");
  lint->callback([lint_options, &exit_code] { exit_code = run_lint(*lint_options); });

  auto symbol_options = std::make_shared<SymbolOptions>();
  CLI::App* symbols =
      app.add_subcommand("lint-symbols", "Check a compiled candidate object against the platform's symbol allowlist");
  symbols->add_option("object", symbol_options->object, "object file")->required()->check(CLI::ExistingFile);
  symbols->add_option("--platform,-p", symbol_options->platform, "platform name")->required();
  symbols->add_flag("--json", symbol_options->json, "print the symbols and findings as JSON");
  symbols->callback([symbol_options, &exit_code] { exit_code = run_lint_symbols(*symbol_options); });

  auto rules_json = std::make_shared<bool>(false);
  CLI::App* rules = app.add_subcommand("lint-rules", "List the lint rules, their severities and options");
  rules->add_flag("--json", *rules_json, "print the catalog as JSON");
  rules->callback([rules_json, &exit_code] { exit_code = run_lint_rules(*rules_json); });
}

}  // namespace kgb::cli
