// A report of real `kgb run`s against the in-process oracle (refine on
// cpu-x86_64, vllm/silu_and_mul, whose baseline is plain C++ and so always
// built): one run where the oracle first answers with a compile error and
// then a wrong result, one where it answers right at once. A case filter and
// a short timing budget keep both runs to seconds. Then `kgb report` on the
// store, and its HTML opened in headless Chromium.
#include <doctest/doctest.h>

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kgb/process.h"
#include "kgb/report/loader.h"
#include "kgb/report/render.h"
#include "kgb/report/report.h"

using namespace kgb;
namespace fs = std::filesystem;

namespace {

struct Ran {
  ExitStatus status;
  std::string out, err;
};

Ran run_program(const std::vector<std::string>& argv, double timeout_seconds) {
  SpawnOptions o;
  o.argv = argv;
  o.working_dir = fs::temp_directory_path();
  o.capture_limit = 64u << 20;
  auto child = ChildProcess::spawn(o);
  REQUIRE_MESSAGE(child.ok(), (child.ok() ? "" : child.error().message));
  Ran r;
  r.status = (*child)->wait(deadline_after(timeout_seconds));
  r.out = (*child)->stdout_text();
  r.err = (*child)->stderr_text();
  return r;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The store with the two runs, made once for every test case of this file.
struct RealRuns {
  std::string dir, store;

  RealRuns() {
    std::string pattern = (fs::temp_directory_path() / "kgb-report-run-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    dir = pattern;
    store = dir + "/runs.db";
    // Cases with a '1' in their name: two correctness cases (size1,
    // rank1_one_token) and both performance cases.
    const std::string config = dir + "/experiment.toml";
    std::ofstream(config) << "[evaluation]\ncases = \"*1*\"\ntime_budget_seconds = 0.2\ntiming_pairs = 1\n";
    for (const auto& [id, faults] : {std::pair<std::string, std::string>{"faulty", "1"}, {"clean", "0"}}) {
      const Ran r = run_program({KGB_CLI_PATH, "run", "--config", config, "--policy", "refine", "--provider", "oracle", "--platform", "cpu-x86_64", "--tasks",
                                 "vllm/silu_and_mul", "--store", store, "--run-id", id, "--seed", "11", "--jobs", "1", "--oracle-compile-errors",
                                 faults, "--oracle-wrong-results", faults, "--quiet"},
                                900);
      INFO("kgb run " << id << ": " << r.status.describe() << "\n" << r.out << r.err);
      REQUIRE(r.status.exited);
      REQUIRE(r.status.code == 0);
    }
  }
};

const RealRuns& real_runs() {
  static const RealRuns runs;
  return runs;
}

report::Report real_report() {
  auto runs = report::load_runs(real_runs().store, {"faulty", "clean"});
  REQUIRE_MESSAGE(runs.ok(), (runs.ok() ? "" : runs.error().message));
  report::ReportOptions options;
  options.store_file = real_runs().store;
  auto built = report::build_report(std::move(runs.value()), options);
  REQUIRE(built.ok());
  return std::move(built.value());
}

// The browser: $KGB_CHROMIUM when set (a path; one that is not executable
// skips the check), else the one found at configure time, else chromium on
// the PATH.
std::string chromium() {
  if (const char* chosen = std::getenv("KGB_CHROMIUM")) return access(chosen, X_OK) == 0 ? std::string(chosen) : std::string();
  if (std::string configured = KGB_CHROMIUM_PATH; !configured.empty() && access(configured.c_str(), X_OK) == 0) return configured;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string d;
  while (std::getline(dirs, d, ':'))
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
      if (access((fs::path(d) / name).c_str(), X_OK) == 0) return (fs::path(d) / name).string();
  return {};
}

std::vector<std::string> chromium_args(const std::string& binary, const std::string& profile) {
  return {binary,
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          "--hide-scrollbars",
          "--user-data-dir=" + profile};
}

// Chromium's stderr without the noise of a machine that has no D-Bus.
std::string browser_log(const std::string& err) {
  std::istringstream lines(err);
  std::string line, kept;
  while (std::getline(lines, line))
    if (line.find("dbus") == std::string::npos && kept.size() < 4000) kept += line + "\n";
  return kept;
}

uint32_t big_endian(const std::string& s, size_t at) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(s[at])) << 24) | (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) | static_cast<uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

}  // namespace

TEST_CASE("the report of real runs: accuracy, first success, speedup, time split, comparison") {
  const report::Report rep = real_report();
  REQUIRE(rep.runs.size() == 2);
  const auto& faulty = rep.runs[0];
  const auto& clean = rep.runs[1];
  CHECK(faulty.run.status == "finished");
  CHECK(faulty.run.policy == "refine");
  CHECK(faulty.run.platform == "cpu-x86_64");
  REQUIRE(faulty.tasks.size() == 1);
  const auto& t = faulty.tasks[0];
  CHECK(t.task == "vllm/silu_and_mul");
  CHECK(t.solved);
  CHECK(faulty.accuracy == 1.0);
  // Compile error, wrong result, then the bundled solution.
  CHECK(t.iterations == 3);
  REQUIRE(t.first_success.has_value());
  CHECK(*t.first_success == 3);
  CHECK(faulty.any_of_rounds[0].value == 0.0);  // K = 1
  CHECK(faulty.any_of_rounds[1].value == 1.0);  // K = 3
  REQUIRE(faulty.curve_iterations.size() == 1);
  CHECK(faulty.curve_iterations[0].budget == 3);
  CHECK(*faulty.pass_at_k[0].value == 1.0);
  // Timed against the baseline on every performance case.
  REQUIRE_FALSE(t.cases.empty());
  for (const auto& c : t.cases) {
    CHECK(c.baseline_us.has_value());
    CHECK(c.candidate_us > 0);
    CHECK(c.speedup.has_value());
  }
  REQUIRE(t.speedup.has_value());
  CHECK(*t.speedup > 0);
  REQUIRE(faulty.geomean_solved.has_value());
  CHECK(*faulty.geomean_solved == doctest::Approx(*t.speedup));
  // Where the time went: all harness stages ran.
  // Lint takes time when kgb has it built in (KGB_WITH_CLANG_TOOLING).
  if (KGB_CLI_HAS_LINT) CHECK(faulty.time.lint > 0);
  else CHECK(faulty.time.lint == 0);
  CHECK(faulty.time.compile > 0);
  CHECK(faulty.time.run > 0);
  CHECK(faulty.time.profile > 0);
  CHECK(faulty.time.total() <= faulty.seconds.total * 1.05 + 0.5);
  CHECK(faulty.tokens.total > clean.tokens.total);  // three exchanges against one
  // The drill-down has the feedback of the failed iterations and the kernel.
  const auto& attempt = faulty.run.attempts.at(static_cast<size_t>(t.shown_attempt));
  REQUIRE(attempt.iterations.size() == 3);
  CHECK(attempt.iterations[0].outcome == "compile-error");
  CHECK_FALSE(attempt.iterations[0].feedback.empty());
  CHECK(attempt.iterations[1].outcome == "wrong-result");
  CHECK(attempt.best_kernel.find("kgb_vllm_silu_and_mul") != std::string::npos);

  CHECK(*clean.tasks[0].first_success == 1);
  CHECK(clean.any_of_rounds[0].value == 1.0);
  CHECK(rep.matched == std::set<std::string>{"vllm/silu_and_mul"});
  REQUIRE(rep.differences.size() == 1);
  CHECK(rep.differences[0].accuracy_points == 0.0);
  CHECK(rep.differences[0].gained.empty());
  CHECK(rep.differences[0].lost.empty());
  CHECK(rep.portability.empty());  // one platform
}

TEST_CASE("kgb report: formats, output file and errors") {
  const auto& runs = real_runs();
  const std::string cli = KGB_REPORT_CLI_PATH;
  const Ran json = run_program({cli, "report", "faulty", "clean", "--store", runs.store, "--format", "json"}, 120);
  REQUIRE(json.status.code == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["runs"][0]["id"] == "faulty");
  CHECK(j["runs"][1]["id"] == "clean");
  CHECK(j["runs"][0]["task_results"][0]["first_success_iteration"] == 3);
  CHECK(j["differences"][0]["against"] == "faulty");

  const Ran table = run_program({cli, "report", "faulty", "clean", "--store", runs.store}, 120);
  REQUIRE(table.status.code == 0);
  CHECK(table.out.find("== Summary ==") != std::string::npos);
  CHECK(table.out.find("== Differences against faulty ==") != std::string::npos);

  const Ran md = run_program({cli, "report", "--all", "--store", runs.store, "--format", "markdown"}, 120);
  REQUIRE(md.status.code == 0);
  CHECK(md.out.find("| metric | faulty | clean |") != std::string::npos);

  const std::string html = runs.dir + "/report.html";
  const Ran out = run_program({cli, "report", "faulty", "clean", "--store", runs.store, "--format", "html", "--out", html}, 120);
  REQUIRE(out.status.code == 0);
  CHECK(out.out.empty());
  CHECK(read_file(html).rfind("<!DOCTYPE html>", 0) == 0);

  const Ran help = run_program({cli, "report", "--help"}, 60);
  CHECK(help.status.code == 0);
  CHECK(help.out.find("pass@k:") != std::string::npos);
  CHECK(help.out.find("fast_p:") != std::string::npos);

  CHECK(run_program({cli, "report", "nope", "--store", runs.store}, 60).status.code == 2);
  CHECK(run_program({cli, "report", "faulty", "--store", runs.dir + "/missing.db"}, 60).status.code == 2);
  CHECK_FALSE(fs::exists(runs.dir + "/missing.db"));
  CHECK(run_program({cli, "report", "faulty", "--store", runs.store, "--reference-platform", "cuda-sm90"}, 60).status.code == 2);
  CHECK(run_program({cli, "report", "faulty", "faulty", "--store", runs.store}, 60).status.code == 2);
  CHECK(run_program({cli, "report", "--store", runs.store}, 60).status.code == 2);
  CHECK(run_program({cli, "report", "faulty", "--store", runs.store, "--format", "pdf"}, 60).status.code == 2);

#if KGB_CLI_HAS_REPORT
  // kgb itself: the same figures as the command alone.
  const Ran kgb = run_program({KGB_CLI_PATH, "report", "faulty", "clean", "--store", runs.store, "--format", "json"}, 120);
  REQUIRE(kgb.status.code == 0);
  auto a = nlohmann::json::parse(kgb.out);
  auto b = j;
  a.erase("generated_at");
  b.erase("generated_at");
  CHECK(a == b);
#else
  MESSAGE("kgb's main does not register `kgb report` yet: the command was tested on its own");
#endif
}

TEST_CASE("the HTML report renders in headless Chromium") {
  const std::string browser = chromium();
  if (browser.empty()) {
    MESSAGE("chromium is not installed (or $KGB_CHROMIUM is not executable): the HTML rendering check is skipped");
    return;
  }
  const auto& runs = real_runs();
  const fs::path artifacts = KGB_REPORT_ARTIFACTS;
  fs::create_directories(artifacts);
  const fs::path html = artifacts / "report.html";
  {
    const report::Report rep = real_report();
    std::ofstream out(html, std::ios::binary);
    out << report::render_html(rep);
  }
  const std::string url = "file://" + fs::absolute(html).string();

  // The DOM after load: the script ran and every chart has its SVG.
  auto args = chromium_args(browser, runs.dir + "/chromium-dom");
  for (const char* a : {"--enable-logging=stderr", "--v=0", "--dump-dom"}) args.push_back(a);
  args.push_back(url);
  const Ran dom = run_program(args, 180);
  INFO("chromium: " << dom.status.describe() << "\n" << browser_log(dom.err));
  REQUIRE(dom.status.exited);
  REQUIRE(dom.status.code == 0);
  CHECK(dom.out.find("data-js=\"ready\"") != std::string::npos);
  // No console output at all: no errors, no uncaught exceptions.
  std::istringstream lines(dom.err);
  std::string line;
  while (std::getline(lines, line)) CHECK_MESSAGE(line.find(":CONSOLE") == std::string::npos, line);
  size_t figures = 0;
  for (size_t at = dom.out.find("<figure class=\"chart"); at != std::string::npos; at = dom.out.find("<figure class=\"chart", at + 1)) {
    const size_t end = dom.out.find("</figure>", at);
    REQUIRE(end != std::string::npos);
    const std::string fig = dom.out.substr(at, end - at);
    CHECK_MESSAGE(fig.find("<svg class=\"chart-svg\"") != std::string::npos, fig.substr(0, 120));
    CHECK(fig.find("</svg>") != std::string::npos);
    ++figures;
  }
  CHECK(figures >= 8);
  for (const char* chart : {"accuracy", "speedup", "budget-tokens", "budget-iterations", "budget-dollars", "cost", "time", "portability"})
    CHECK_MESSAGE(dom.out.find(std::string("data-chart=\"") + chart + "\"") != std::string::npos, chart);

  // A screenshot, kept next to the test as an artefact.
  const fs::path png = artifacts / "report.png";
  fs::remove(png);
  auto shot = chromium_args(browser, runs.dir + "/chromium-shot");
  shot.push_back("--window-size=1200,900");
  shot.push_back("--screenshot=" + png.string());
  shot.push_back(url);
  const Ran taken = run_program(shot, 180);
  INFO("chromium: " << taken.status.describe() << "\n" << browser_log(taken.err));
  REQUIRE(taken.status.code == 0);
  REQUIRE(fs::exists(png));
  const std::string bytes = read_file(png);
  REQUIRE(bytes.size() > 24);
  CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(big_endian(bytes, 16) == 1200);
  CHECK(big_endian(bytes, 20) == 900);
  CHECK(bytes.size() > 15000);  // a blank page compresses to a few kilobytes
  MESSAGE("screenshot: " << png.string());
}
