// Malformed input ends in a clear finding or diagnostic within the limits,
// never a hang or a crash of the caller.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <random>
#include <thread>

#include "isolation.h"
#include "kgb/lint.h"

namespace {

using namespace kgb::lint;
using Clock = std::chrono::steady_clock;

LintRequest request_for(std::string source, Language language = Language::Cpp) {
  LintRequest request;
  request.source = std::move(source);
  request.file_name = "malformed.cpp";
  request.language = language;
  request.cache_dir = KGB_LINT_TEST_CACHE;
  return request;
}

bool has_rule(const LintReport& report, const std::string& rule) {
  for (const auto& f : report.findings)
    if (f.rule == rule) return true;
  return false;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

TEST_CASE("binary garbage is rejected as not text before any parsing") {
  std::mt19937 random(7);
  std::string garbage(64 * 1024, '\0');
  for (auto& c : garbage) c = static_cast<char>(random() & 0xff);
  const auto start = Clock::now();
  const LintReport report = lint(request_for(garbage));
  CHECK(seconds_since(start) < 0.5);
  CHECK(report.rejected());
  CHECK(has_rule(report, "lint-input-not-text"));
  CHECK(report.passes.empty());

  // High bytes without a NUL: still not UTF-8 text.
  for (auto& c : garbage) c = static_cast<char>(0x80 | (random() & 0x7f));
  CHECK(has_rule(lint(request_for(garbage)), "lint-input-not-text"));
}

TEST_CASE("a 5 MB file is rejected by the size limit") {
  std::string big;
  while (big.size() < 5 * 1024 * 1024) big += "float table_entry_" + std::to_string(big.size()) + " = 1.0f;\n";
  const auto start = Clock::now();
  const LintReport report = lint(request_for(big));
  CHECK(seconds_since(start) < 0.5);
  CHECK(report.rejected());
  CHECK(has_rule(report, "lint-input-too-large"));
  CHECK(report.findings.front().message.find("the limit is 1048576") != std::string::npos);
}

TEST_CASE("an unterminated comment is a parse error with a location") {
  const LintReport report = lint(request_for("#include \"kgb_kernel.h\"\nint x = 1;\n/* never closed\nint y;\n"));
  CHECK(report.infra_error.empty());
  CHECK_FALSE(report.parse_ok);
  bool found = false;
  for (const auto& d : report.diagnostics)
    if (d.message.find("unterminated /* comment") != std::string::npos) {
      found = true;
      CHECK(d.line == 3);
    }
  CHECK(found);
}

TEST_CASE("#include of /dev/zero ends quickly with a finding and a diagnostic") {
  const auto start = Clock::now();
  LintRequest request = request_for("#include </dev/zero>\nint main() { return 0; }\n");
  request.time_limit_seconds = 20;
  const LintReport report = lint(request);
  CHECK(seconds_since(start) < 10);
  CHECK(has_rule(report, "include-allowlist"));
  CHECK_FALSE(report.parse_ok);
  CHECK_FALSE(report.diagnostics.empty());
  CHECK_FALSE(has_rule(report, "lint-timeout"));
}

TEST_CASE("#include of a symlink to a device and of a huge binary file are refused") {
  const LintReport report =
      lint(request_for("#include </dev/stdin>\n#include </dev/urandom>\nint main() { return 0; }\n"));
  CHECK(has_rule(report, "include-allowlist"));
  CHECK_FALSE(report.parse_ok);
}

TEST_CASE("a parse that runs past the time limit becomes a lint-timeout finding") {
  // Each macro doubles the one before: 2^40 tokens, far more than any limit.
  std::string bomb = "#define M0 x+\n";
  for (int i = 1; i <= 40; ++i)
    bomb += "#define M" + std::to_string(i) + " M" + std::to_string(i - 1) + " M" + std::to_string(i - 1) + "\n";
  bomb += "int f(int x) { return M40 0; }\n";
  LintRequest request = request_for(bomb);
  request.time_limit_seconds = 2;
  const auto start = Clock::now();
  const LintReport report = lint(request);
  const double elapsed = seconds_since(start);
  CHECK(elapsed < 4.0);
  CHECK(report.rejected());
  CHECK((has_rule(report, "lint-timeout") || has_rule(report, "lint-crashed")));
  MESSAGE("macro bomb ended after " << elapsed << " s with " << report.findings.front().rule);
}

TEST_CASE("deep nesting and template recursion end in diagnostics, not crashes") {
  std::string nested = "int v = " + std::string(100000, '(') + "1" + std::string(100000, ')') + ";\n";
  LintReport report = lint(request_for(nested));
  CHECK_FALSE(report.parse_ok);
  CHECK_FALSE(has_rule(report, "lint-crashed"));

  report = lint(request_for("template <int N> struct R { static constexpr int v = R<N + 1>::v; };\n"
                            "int x = R<0>::v;\n"));
  CHECK_FALSE(report.parse_ok);
  CHECK_FALSE(has_rule(report, "lint-crashed"));
  CHECK_FALSE(report.diagnostics.empty());
}

TEST_CASE("the isolation reports crashes, hangs and memory exhaustion of the child") {
  using kgb::lint::detail::IsolatedOutcome;
  using kgb::lint::detail::run_isolated;

  auto crashed = run_isolated([]() -> std::string { std::raise(SIGSEGV); return "unreachable"; }, 5, 0);
  CHECK(crashed.status == IsolatedOutcome::Status::Crashed);
  CHECK(crashed.signal == SIGSEGV);

  const auto start = Clock::now();
  auto hung = run_isolated(
      []() -> std::string {
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return "late";
      },
      0.5, 0);
  CHECK(hung.status == IsolatedOutcome::Status::TimedOut);
  CHECK(seconds_since(start) < 3);

  auto hungry = run_isolated(
      []() -> std::string {
        std::vector<std::string> hog;
        for (;;) hog.emplace_back(64 << 20, 'x');
      },
      10, size_t{512} << 20);
  CHECK(hungry.status == IsolatedOutcome::Status::Crashed);
  CHECK(hungry.exit_code == kgb::lint::detail::kExitOutOfMemory);

  auto fine = run_isolated([] { return std::string(300000, 'r'); }, 5, 0);
  CHECK(fine.status == IsolatedOutcome::Status::Completed);
  CHECK(fine.output.size() == 300000);
}

TEST_CASE("lint in process and lint in a child agree") {
  LintRequest request = request_for(
      "#include <cstdlib>\n#include \"kgb_kernel.h\"\nstatic int calls;\n"
      "extern \"C\" int kgb_t(const kgb_tensor* x, kgb_tensor* y, kgb_stream s) { return getenv(\"A\") ? calls : 0; }\n");
  const LintReport forked = lint(request);
  request.isolation = Isolation::InProcess;
  const LintReport local = lint(request);
  REQUIRE(forked.findings.size() == 2);
  REQUIRE(local.findings.size() == forked.findings.size());
  for (size_t i = 0; i < local.findings.size(); ++i) {
    CHECK(local.findings[i].rule == forked.findings[i].rule);
    CHECK(local.findings[i].location == forked.findings[i].location);
    CHECK(local.findings[i].message == forked.findings[i].message);
  }
  CHECK(local.parse_ok == forked.parse_ok);
}
