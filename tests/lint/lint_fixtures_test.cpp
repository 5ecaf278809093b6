// Every annotated fixture yields exactly its expected findings: each rule fires
// where announced and nowhere else, across C++, CUDA and OpenCL.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "lint_fixture.h"

namespace {

using namespace kgb::lint;
using namespace kgb::lint::testing;

std::string diagnostics_text(const LintReport& report) {
  std::string out;
  for (const auto& d : report.diagnostics)
    out += "  " + d.file + ":" + std::to_string(d.line) + ": " + d.severity + ": " + d.message + "\n";
  return out;
}

std::string findings_text(const LintReport& report) {
  std::string out;
  for (const auto& f : report.findings) out += "  " + f.location + " " + f.severity + " " + f.rule + ": " + f.message + "\n";
  return out;
}

}  // namespace

TEST_CASE("every fixture yields exactly its annotated findings") {
  const auto files = fixture_files(KGB_LINT_FIXTURES_DIR);
  REQUIRE(files.size() >= 40);
  std::map<std::string, int> fired;  // rule -> fixtures where it is expected
  std::set<std::string> languages;
  for (const auto& path : files) {
    const Fixture fixture = load_fixture(path);
    CAPTURE(path.filename().string());
    for (const auto& problem : fixture.problems) FAIL_CHECK("malformed fixture: " << problem);
    if (compiler_missing(fixture)) {
      MESSAGE("skipped, the compiler of " << fixture.descriptor << " is not installed here");
      continue;
    }
    const LintReport report = lint(fixture_request(fixture, KGB_LINT_TEST_CACHE));
    if (!report.infra_error.empty() && fixture.language == Language::Hip) {
      MESSAGE("skipped, HIP cannot be parsed here: " << report.infra_error);
      continue;
    }
    languages.insert(std::string(language_name(fixture.language)));
    INFO("diagnostics:\n" << diagnostics_text(report) << "findings:\n" << findings_text(report));
    CHECK(report.infra_error.empty());
    CHECK(report.parse_ok == !fixture.expect_parse_errors);
    const auto actual = actual_findings(report);
    for (const auto& e : fixture.expected)
      if (!actual.count(e)) FAIL_CHECK("missing " << describe(e));
    for (const auto& a : actual)
      if (!fixture.expected.count(a)) FAIL_CHECK("unexpected " << describe(a));
    for (const auto& e : fixture.expected) fired[e.rule]++;
  }
  // Coverage: every rule of the catalog is expected to fire somewhere.
  for (const auto& rule : rule_catalog()) {
    CAPTURE(rule.name);
    CHECK(fired[rule.name] > 0);
  }
  CHECK(languages.count("c++"));
  CHECK(languages.count("cuda"));
  CHECK(languages.count("opencl-host"));
  CHECK(languages.count("opencl-c"));
}

TEST_CASE("rule options change severities and switch rules off") {
  const Fixture fixture = load_fixture(std::filesystem::path(KGB_LINT_FIXTURES_DIR) / "cuda_default_stream.cu");
  LintRequest request = fixture_request(fixture, KGB_LINT_TEST_CACHE);

  request.rule_options["launch-stream.severity"] = "reject";
  LintReport report = lint(request);
  REQUIRE_FALSE(report.findings.empty());
  for (const auto& f : report.findings) CHECK(f.severity == "reject");
  CHECK(report.rejected());

  request.rule_options["launch-stream.severity"] = "off";
  report = lint(request);
  CHECK(report.findings.empty());
  CHECK(report.clean());
}

TEST_CASE("findings carry locations, excerpts and fix hints") {
  const Fixture fixture = load_fixture(std::filesystem::path(KGB_LINT_FIXTURES_DIR) / "cpu_mutable_global.cpp");
  const LintReport report = lint(fixture_request(fixture, KGB_LINT_TEST_CACHE));
  REQUIRE_FALSE(report.findings.empty());
  const LintFinding& first = report.findings.front();
  CHECK(first.rule == "mutable-global-state");
  CHECK(first.layer == "L1");
  CHECK(first.file == "cpu_mutable_global.cpp");
  CHECK(first.line == 8);
  CHECK(first.location == "cpu_mutable_global.cpp:8:15");
  CHECK(first.excerpt.find("g_cache") != std::string::npos);
  CHECK(first.message.find("`g_cache`") != std::string::npos);
  CHECK_FALSE(first.fix_hint.empty());
  const auto verdict = report.verdict_findings();
  REQUIRE(verdict.size() == report.findings.size());
  CHECK(verdict.front().message.find("Fix: ") != std::string::npos);
}

TEST_CASE("the signature finding names the expected and the found declaration") {
  const Fixture fixture = load_fixture(std::filesystem::path(KGB_LINT_FIXTURES_DIR) / "cpu_signature_params.cpp");
  const LintReport report = lint(fixture_request(fixture, KGB_LINT_TEST_CACHE));
  REQUIRE(report.findings.size() == 1);
  const std::string& message = report.findings.front().message;
  CHECK(message.find("Expected: extern \"C\" int kgb_aten_softmax(const kgb_tensor* self, int64_t dim, kgb_tensor* "
                     "out, kgb_stream stream);") != std::string::npos);
  CHECK(message.find("Found: extern \"C\" int kgb_aten_softmax(kgb_tensor * self, int dim, kgb_tensor * out);") !=
        std::string::npos);
  CHECK(message.find("3 parameters instead of 4") != std::string::npos);
}

TEST_CASE("parse errors come back as located diagnostics with an excerpt") {
  LintRequest request;
  request.source = "#include \"kgb_kernel.h\"\nextern \"C\" int f(const kgb_tensor* x) {\n  return undeclared + 1;\n}\n";
  request.file_name = "broken.cpp";
  request.cache_dir = KGB_LINT_TEST_CACHE;
  const LintReport report = lint(request);
  CHECK_FALSE(report.parse_ok);
  REQUIRE_FALSE(report.diagnostics.empty());
  const auto& d = report.diagnostics.front();
  CHECK(d.file == "broken.cpp");
  CHECK(d.line == 3);
  CHECK(d.column == 10);
  CHECK(d.severity == "error");
  CHECK(d.message.find("undeclared") != std::string::npos);
  CHECK(d.excerpt == "  return undeclared + 1;");
}

TEST_CASE("a forked CUDA lint (device and host passes side by side) agrees with one in process") {
  for (const char* name : {"cuda_arch_branches.cu", "cuda_device_globals.cu", "cuda_timing.cu"}) {
    CAPTURE(name);
    const Fixture fixture = load_fixture(std::filesystem::path(KGB_LINT_FIXTURES_DIR) / name);
    LintRequest request = fixture_request(fixture, KGB_LINT_TEST_CACHE);
    const LintReport forked = lint(request);
    request.isolation = Isolation::InProcess;
    const LintReport local = lint(request);
    REQUIRE(forked.infra_error.empty());
    CHECK(forked.passes == local.passes);
    CHECK(forked.parse_ok == local.parse_ok);
    REQUIRE(forked.findings.size() == local.findings.size());
    for (size_t i = 0; i < local.findings.size(); ++i) {
      CHECK(forked.findings[i].rule == local.findings[i].rule);
      CHECK(forked.findings[i].location == local.findings[i].location);
      CHECK(forked.findings[i].message == local.findings[i].message);
    }
    CHECK(forked.diagnostics.size() == local.diagnostics.size());
  }
}
