// Reads an annotated lint fixture (see fixtures/README.md): the request its
// header describes and the findings its EXPECT comments announce.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kgb/lint.h"

namespace kgb::lint::testing {

struct Expected {
  int line = 0;  // 0: a whole-file finding
  std::string severity;
  std::string rule;
  auto operator<=>(const Expected&) const = default;
};

struct Fixture {
  std::filesystem::path path;
  std::string source;
  Platform platform;
  std::optional<Task> task;
  Language language = Language::Cpp;
  std::map<std::string, std::string> options;
  bool expect_parse_errors = false;
  // descriptor=NAME: the real platform descriptor (its compile command), for
  // the rules that run the platform's compiler; empty: a bare backend.
  std::string descriptor;
  std::set<Expected> expected;
  std::vector<std::string> problems;  // malformed annotations
};

Fixture load_fixture(const std::filesystem::path& path);
std::vector<std::filesystem::path> fixture_files(const std::filesystem::path& dir);
// The fixture names a real platform whose compiler is not installed here.
bool compiler_missing(const Fixture& fixture);
// The request for a fixture; the fixture must outlive it.
LintRequest fixture_request(const Fixture& fixture, const std::filesystem::path& cache_dir);
std::set<Expected> actual_findings(const LintReport& report);
std::string describe(const Expected& e);

}  // namespace kgb::lint::testing
