// A fresh private folder for one test of tests/slurm.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include <doctest/doctest.h>

namespace kgb::test {

inline std::filesystem::path temp_dir(const std::string& name) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("kgb-" + name + "-XXXXXX")).string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

}  // namespace kgb::test
