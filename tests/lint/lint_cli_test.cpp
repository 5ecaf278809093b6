// `kgb lint`, `kgb lint-symbols` and `kgb lint-rules` through the same CLI11
// wiring the kgb executable uses.
#include <doctest/doctest.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exit_codes.h"
#include "kgb/evaluator.h"
#include "kgb/lint.h"
#include "kgb/paths.h"
#include "kgb/process.h"
#include "lint_commands.h"

namespace {

struct Run {
  int exit_code = -1;
  std::string out;
};

// Runs the lint commands in this process with stdout captured.
Run run_cli(std::vector<std::string> args) {
  CLI::App app{"kgb"};
  app.require_subcommand(1);
  int exit_code = kgb::cli::kExitOk;
  kgb::cli::add_lint_commands(app, exit_code);
  std::vector<const char*> argv{"kgb"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream captured;
  auto* previous = std::cout.rdbuf(captured.rdbuf());
  Run run;
  try {
    app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
    run.exit_code = exit_code;
  } catch (const CLI::ParseError& e) {
    run.exit_code = app.exit(e) == 0 ? kgb::cli::kExitOk : kgb::cli::kExitUsage;
  }
  std::cout.rdbuf(previous);
  run.out = captured.str();
  return run;
}

// A platform descriptor of the lead's folder, if one of the backend exists.
std::string platform_named(const std::string& backend) {
  for (const auto& p : kgb::load_all_platforms())
    if (p.backend == backend) return p.name;
  return {};
}

}  // namespace

TEST_CASE("kgb lint-rules lists the catalog") {
  const Run text = run_cli({"lint-rules"});
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("mutable-global-state (reject)") != std::string::npos);
  CHECK(text.out.find("--option launch-stream.severity=warn") != std::string::npos);
  const Run json = run_cli({"lint-rules", "--json"});
  CHECK(nlohmann::json::parse(json.out).size() == kgb::lint::rule_catalog().size());
}

TEST_CASE("adding the lint commands installs the evaluator hooks") {
  run_cli({"lint-rules"});
  CHECK(static_cast<bool>(kgb::default_eval_hooks().lint));
  CHECK(static_cast<bool>(kgb::default_eval_hooks().symbol_check));
}

TEST_CASE("kgb lint on a file: text, JSON and exit codes") {
  const std::string platform = platform_named("cpu");
  if (platform.empty()) {
    MESSAGE("no cpu platform descriptor yet; skipped");
    return;
  }
  kgb::TempDir dir("kgb-lint-cli");
  const auto file = dir.path() / "cheat.cpp";
  std::ofstream(file) << "#include <cstdlib>\n#include \"kgb_kernel.h\"\nstatic float* cache;\n"
                         "int f() { return getenv(\"X\") != nullptr; }\n";
  const Run text = run_cli({"lint", file.string(), "--platform", platform});
  CHECK(text.exit_code == kgb::cli::kExitFailed);
  CHECK(text.out.find(":3:15: reject [mutable-global-state]") != std::string::npos);
  CHECK(text.out.find("reject [process-escape]") != std::string::npos);
  CHECK(text.out.find("hint: ") != std::string::npos);

  const Run json = run_cli({"lint", file.string(), "--platform", platform, "--json"});
  const auto report = nlohmann::json::parse(json.out);
  CHECK(report.at("rejected") == true);
  CHECK(report.at("findings").size() == 2);
  CHECK(report.at("platform") == platform);

  const Run relaxed = run_cli({"lint", file.string(), "--platform", platform, "-O", "mutable-global-state.severity=off",
                               "-O", "process-escape.severity=warn"});
  CHECK(relaxed.exit_code == kgb::cli::kExitOk);

  const auto clean = dir.path() / "clean.cpp";
  std::ofstream(clean) << "#include \"kgb_kernel.h\"\nint f(const kgb_tensor* x) { return (int)kgb_numel(x); }\n";
  CHECK(run_cli({"lint", clean.string(), "--platform", platform}).exit_code == kgb::cli::kExitOk);

  CHECK(run_cli({"lint", clean.string(), "--platform", "no-such-platform"}).exit_code == kgb::cli::kExitUsage);
  CHECK(run_cli({"lint", clean.string(), "--platform", platform, "--task", "no/such-task"}).exit_code ==
        kgb::cli::kExitUsage);
  CHECK(run_cli({"lint", clean.string(), "--platform", platform, "-O", "nonsense"}).exit_code == kgb::cli::kExitUsage);
}
