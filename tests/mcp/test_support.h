// Shared by the MCP doctest suites: a private temp folder and an MCP run record.
#pragma once

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "kgb/store/run_store.h"

namespace kgb::mcp::test {

inline std::string temp_dir(const std::string& name) {
  std::string pattern = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

inline store::RunRecord mcp_run(const std::string& id) {
  store::RunRecord run;
  run.id = id;
  run.policy = "mcp";
  run.provider = "mcp";
  run.model = "agent";
  run.platform = "cpu-x86_64";
  run.tasks_glob = "*";
  return run;
}

}  // namespace kgb::mcp::test
