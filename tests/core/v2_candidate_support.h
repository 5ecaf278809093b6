// Helpers of the tests that evaluate the v2 pilot tasks' wrong candidates
// (tests/core/v2_candidates/<task id with / as _>/) and bundled solutions
// with kgb::evaluate on cpu-x86_64: real g++, real runner processes.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/task.h"

namespace kgb_v2_test {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path.string());
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// A task of benchmark/tasks by id, loaded once per test binary.
inline const kgb::Task& task(const std::string& id) {
  static std::map<std::string, kgb::Task> loaded;
  auto it = loaded.find(id);
  if (it == loaded.end()) {
    auto t = kgb::load_task_file(kgb::tasks_root() / id / "spec.json");
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
    it = loaded.emplace(id, *t).first;
  }
  return it->second;
}

inline const kgb::Platform& cpu() {
  static kgb::Platform p = [] {
    auto r = kgb::load_platform("cpu-x86_64");
    REQUIRE(r.ok());
    return *r;
  }();
  return p;
}

// A wrong candidate's source, from tests/core/v2_candidates/<dir>/<file>.
inline std::string candidate(const std::string& dir, const std::string& file) {
  return read_text(kgb::source_root() / "tests/core/v2_candidates" / dir / file);
}

// The task's bundled solution for a backend file (cpu.cpp, opencl.cpp, ...).
inline std::string solution(const std::string& id, const std::string& file) {
  return read_text(kgb::tasks_root() / id / "solutions" / file);
}

inline kgb::EvalOptions check_only() {
  kgb::EvalOptions o;
  o.time = false;
  o.seed = 42;
  o.check_timeout_seconds = 20;
  return o;
}

inline kgb::Verdict evaluate(const std::string& id, const std::string& source) {
  return kgb::evaluate(task(id), cpu(), source, check_only());
}

// Names of the cases with at least one failing check.
inline std::set<std::string> failed_cases(const kgb::Verdict& v) {
  std::set<std::string> names;
  for (const auto& c : v.cases)
    if (!c.passed) names.insert(c.name);
  return names;
}

// The statuses of the failing checks ("mismatch", "bits-differ", ...).
inline std::set<std::string> failed_statuses(const kgb::Verdict& v) {
  std::set<std::string> statuses;
  for (const auto& c : v.cases)
    if (!c.passed) statuses.insert(c.status);
  return statuses;
}

inline bool has_finding(const kgb::Verdict& v, const std::string& rule) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const kgb::Finding& f) { return f.rule == rule; });
}

inline std::string explain(const kgb::Verdict& v) {
  std::ostringstream os;
  os << kgb::outcome_name(v.outcome) << ": " << v.summary;
  for (const auto& f : v.findings) os << " [" << f.rule << ": " << f.message << "]";
  return os.str();
}

}  // namespace kgb_v2_test
