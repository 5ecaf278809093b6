// `kgb run --resume` on a damaged store: the real binary stops with an error
// naming the store file and SQLite's message, instead of resuming with an
// empty queue or a zeroed budget. The run is made by `kgb run` itself (the
// in-process oracle, one task), copied, and each copy damaged one way.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "damaged_store.h"

using namespace kgb::test;
namespace fs = std::filesystem;

namespace {

struct Exit {
  int code = -1;
  std::string output;  // stdout and stderr together
};

Exit run_kgb(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(KGB_CLI_PATH));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(KGB_CLI_PATH, argv.data());
    _exit(127);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  Exit e;
  e.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  e.output = text.str();
  return e;
}

std::vector<std::string> resume_args(const fs::path& store) {
  return {"run", "--resume", "damaged", "--store", store.string(), "--quiet"};
}

// A copy of the finished run's store, checkpointed so that it is one file.
fs::path copy_of(const fs::path& original, const fs::path& dir, const std::string& name) {
  const fs::path copy = dir / (name + ".db");
  fs::copy_file(original, copy, fs::copy_options::overwrite_existing);
  return copy;
}

// The finished run, made once for all subcases.
const fs::path& finished_store() {
  static const fs::path store = [] {
    std::string pattern = (fs::temp_directory_path() / "kgb-resume-damaged-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    const fs::path file = fs::path(pattern) / "runs.db";
    const Exit made = run_kgb({"run", "--policy", "refine", "--provider", "oracle", "--platform", "cpu-x86_64", "--tasks",
                               "blas/saxpy", "--no-time", "--no-lint", "--jobs", "1", "--concurrency", "1", "--store",
                               file.string(), "--run-id", "damaged", "--seed", "5", "--quiet"},
                              fs::path(pattern) / "first.log");
    REQUIRE_MESSAGE(made.code == 0, made.output);
    checkpoint_store(file);
    return file;
  }();
  return store;
}

}  // namespace

TEST_CASE("kgb run --resume stops with the store file and SQLite's message when a read fails") {
  const fs::path& store = finished_store();
  const fs::path dir = store.parent_path();

  SUBCASE("the undamaged store resumes (the finished run has nothing left to do)") {
    const fs::path copy = copy_of(store, dir, "intact");
    const Exit e = run_kgb(resume_args(copy), dir / "intact.log");
    CHECK_MESSAGE(e.code == 0, e.output);
  }
  SUBCASE("attempts unreadable: no empty queue") {
    const fs::path copy = copy_of(store, dir, "attempts");
    corrupt_table_page(copy, "attempts");
    const Exit e = run_kgb(resume_args(copy), dir / "attempts.log");
    CHECK(e.code != 0);
    CHECK_MESSAGE(e.output.find("kgb run: run store " + copy.string() + ": ") != std::string::npos, e.output);
    CHECK_MESSAGE(e.output.find("malformed") != std::string::npos, e.output);
    CHECK(e.output.find("== run damaged") == std::string::npos);  // no summary of a session that did not happen
  }
  SUBCASE("LLM calls unreadable: no zeroed budget") {
    const fs::path copy = copy_of(store, dir, "llm");
    corrupt_table_page(copy, "llm_calls");
    const Exit e = run_kgb(resume_args(copy), dir / "llm.log");
    CHECK(e.code != 0);
    CHECK_MESSAGE(e.output.find("run store " + copy.string()) != std::string::npos, e.output);
    CHECK_MESSAGE(e.output.find("malformed") != std::string::npos, e.output);
    CHECK(e.output.find("== run damaged") == std::string::npos);
  }
  SUBCASE("the file cut short") {
    const fs::path copy = copy_of(store, dir, "truncated");
    truncate_store(copy, 1);
    const Exit e = run_kgb(resume_args(copy), dir / "truncated.log");
    CHECK(e.code != 0);
    CHECK_MESSAGE(e.output.find(copy.string()) != std::string::npos, e.output);
    CHECK(e.output.find("== run damaged") == std::string::npos);
  }
}
