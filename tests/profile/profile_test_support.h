// Shared by the profile tool's integration tests: tasks, test kernels,
// platforms that skip the test when they are not available here.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "kgb/paths.h"
#include "kgb/platform.h"
#include "kgb/profile.h"
#include "kgb/task.h"

namespace kgb::test {

inline const Task& task(const std::string& id) {
  static auto report = load_all_tasks(tasks_root());
  for (const auto& t : report.tasks)
    if (t.id == id) return t;
  FAIL("task " << id << " not found");
  throw std::logic_error("unreachable");
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A kernel of tests/profile/kernels.
inline std::string test_kernel(const std::string& name) {
  const std::string text = read_file(std::filesystem::path(KGB_PROFILE_TEST_DIR) / "kernels" / name);
  REQUIRE_MESSAGE(!text.empty(), "missing test kernel " << name);
  return text;
}

// The 1-based line of `marker` in `source`.
inline int line_of(const std::string& source, const std::string& marker) {
  std::istringstream in(source);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number)
    if (line.find(marker) != std::string::npos) return number;
  return 0;
}

// The platform when it is available here; otherwise nullopt and `why`.
inline std::optional<Platform> available_platform(const std::string& name, std::string& why) {
  auto p = load_platform(name);
  if (!p) {
    why = p.error().message;
    return std::nullopt;
  }
  auto a = check_availability(*p);
  if (!a.available) {
    why = a.reason;
    return std::nullopt;
  }
  return *p;
}

#define KGB_REQUIRE_PLATFORM(var, name)                                    \
  std::string var##_why;                                                   \
  const auto var = ::kgb::test::available_platform(name, var##_why);       \
  if (!var) {                                                              \
    MESSAGE("skipped: " << name << " is not available here: " << var##_why); \
    return;                                                                \
  }

// Sets an environment variable for a scope (the tests run one at a time).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

inline std::string describe(const profile::ProfileResult& r) {
  std::string s = "error: " + r.error + "\ntools:";
  for (const auto& t : r.tools) s += " " + t;
  for (const auto& n : r.notes) s += "\nnote: " + n;
  for (const auto& w : r.warnings) s += "\nwarning: " + w;
  for (const auto& f : r.findings) s += "\nfinding: " + f.rule + " at " + f.location + ": " + f.message;
  for (const auto& l : r.summary) s += "\nsummary: " + l;
  for (const auto& [tool, log] : r.logs) s += "\n--- " + tool + " ---\n" + log.substr(0, 4000);
  return s;
}

}  // namespace kgb::test
