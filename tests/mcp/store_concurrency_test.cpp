// Several MCP servers may share a run: attempts opened at the same moment by
// different processes must get distinct sample numbers.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "kgb/store/run_store.h"
#include "test_support.h"

using namespace kgb;

TEST_CASE("add_attempt from four processes at once numbers every sample once") {
  const std::string file = mcp::test::temp_dir("kgb-mcp-samples") + "/runs.db";
  {
    auto db = store::RunStore::open(file);
    REQUIRE(db.ok());
    REQUIRE((*db)->create_run(mcp::test::mcp_run("shared")).ok());
  }
  constexpr int kProcesses = 4, kEach = 25;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      auto db = store::RunStore::open(file);
      if (!db) _exit(2);
      for (int i = 0; i < kEach; ++i)
        if (!(*db)->add_attempt("shared", "blas/saxpy")) _exit(3);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  auto db = store::RunStore::open(file);
  REQUIRE(db.ok());
  std::set<int> samples;
  for (auto rows = (*db)->attempts("shared"); const auto& a : *rows) samples.insert(a.sample);
  CHECK(samples.size() == kProcesses * kEach);
  CHECK(*samples.begin() == 0);
  CHECK(*samples.rbegin() == kProcesses * kEach - 1);
}
