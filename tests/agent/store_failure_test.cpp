// Run-store reads on a damaged file: every read reports the failure (naming the
// store file and SQLite's message) instead of an empty list, a missing row or
// zero totals. Real SQLite files, damaged the ways disks, people and other
// processes do.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "damaged_store.h"
#include "kgb/store/run_store.h"

using namespace kgb;
using namespace kgb::store;
using namespace kgb::test;

namespace {

std::filesystem::path temp_store(const std::string& name) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("kgb-damaged-" + name + "-XXXXXX")).string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return std::filesystem::path(pattern) / "runs.db";
}

// What a populated store holds, for the reads to ask for.
struct Keys {
  int64_t attempt = 0;
  int64_t evaluation = 0;
  std::string kernel;
};

// A run with one row in every table.
Keys populate(RunStore& db) {
  RunRecord run;
  run.id = "r";
  run.policy = "refine";
  run.provider = "oracle";
  run.model = "oracle";
  run.platform = "cpu-x86_64";
  REQUIRE(db.create_run(run).ok());
  Keys k;
  k.attempt = *db.ensure_attempt("r", "blas/saxpy", 0);
  k.kernel = *db.put_kernel("int x;");

  IterationRecord it;
  it.run_id = "r";
  it.attempt_id = k.attempt;
  it.index = 0;
  it.status = "done";
  it.outcome = "passed";
  REQUIRE(db.save_iteration(it).ok());

  LlmCallRecord call;
  call.run_id = "r";
  call.attempt_id = k.attempt;
  call.provider = call.model = "oracle";
  call.id = *db.begin_llm_call(call);
  call.status = "done";
  call.tokens.input = 10;
  REQUIRE(db.finish_llm_call(call).ok());

  ToolCallRecord tool;
  tool.run_id = "r";
  tool.attempt_id = k.attempt;
  tool.step = 1;
  tool.tool = "run";
  tool.kernel = k.kernel;
  tool.id = *db.begin_tool_call(tool);
  tool.status = "done";
  EvaluationRecord e;
  e.run_id = "r";
  e.attempt_id = k.attempt;
  e.step = 1;
  e.kernel = k.kernel;
  e.purpose = "run";
  REQUIRE(db.finish_tool_call(tool, e).ok());
  k.evaluation = (*db.find_tool_call(k.attempt, 0, 1))->evaluation_id;

  ExecutorJobRecord job;
  job.run_id = "r";
  job.key = "a1-i0-s1";
  job.state = "queued";
  REQUIRE(db.record_executor_job(job).ok());
  return k;
}

template <typename T>
std::string failure_of(const Result<T>& r) {
  return r.ok() ? std::string() : r.error().message;
}

// One read of the store and the table it cannot do without.
struct Read {
  std::string name, table;
  std::function<std::string(RunStore&, const Keys&)> run;  // the error message; empty: it succeeded
};

std::vector<Read> reads() {
  return {
      {"list_runs", "runs", [](RunStore& db, const Keys&) { return failure_of(db.list_runs()); }},
      {"load_run", "runs", [](RunStore& db, const Keys&) { return failure_of(db.load_run("r")); }},
      {"attempts", "attempts", [](RunStore& db, const Keys&) { return failure_of(db.attempts("r")); }},
      {"attempt", "attempts", [](RunStore& db, const Keys& k) { return failure_of(db.attempt(k.attempt)); }},
      {"iterations", "iterations", [](RunStore& db, const Keys& k) { return failure_of(db.iterations(k.attempt)); }},
      {"find_llm_call", "llm_calls", [](RunStore& db, const Keys& k) { return failure_of(db.find_llm_call(k.attempt, 0, 0)); }},
      {"find_tool_call", "tool_calls", [](RunStore& db, const Keys& k) { return failure_of(db.find_tool_call(k.attempt, 0, 1)); }},
      {"evaluation", "evaluations", [](RunStore& db, const Keys& k) { return failure_of(db.evaluation(k.evaluation)); }},
      {"evaluations", "evaluations", [](RunStore& db, const Keys&) { return failure_of(db.evaluations("r")); }},
      {"executor_jobs", "executor_jobs", [](RunStore& db, const Keys&) { return failure_of(db.executor_jobs("r")); }},
      {"kernel", "kernels", [](RunStore& db, const Keys& k) { return failure_of(db.kernel(k.kernel)); }},
      {"totals (llm_calls)", "llm_calls", [](RunStore& db, const Keys&) { return failure_of(db.totals("r")); }},
      {"totals (iterations)", "iterations", [](RunStore& db, const Keys&) { return failure_of(db.totals("r")); }},
      {"totals (attempts)", "attempts", [](RunStore& db, const Keys&) { return failure_of(db.totals("r")); }},
      {"totals (evaluations)", "evaluations", [](RunStore& db, const Keys&) { return failure_of(db.totals("r")); }},
      {"finish_attempt", "attempts",
       [](RunStore& db, const Keys& k) {
         AttemptRecord a;
         a.id = k.attempt;
         a.status = "solved";
         return failure_of(db.finish_attempt(a));
       }},
  };
}

}  // namespace

TEST_CASE("every read of a populated store succeeds (the baseline the damage cases break)") {
  const auto file = temp_store("baseline");
  auto db = RunStore::open(file);
  REQUIRE(db.ok());
  const Keys k = populate(**db);
  for (const auto& read : reads()) CHECK_MESSAGE(read.run(**db, k).empty(), read.name);
  CHECK((*db)->attempts("r")->size() == 1);
  CHECK((*db)->totals("r")->llm_calls == 1);
}

TEST_CASE("a table dropped by another process: each read names the store file and the missing table") {
  for (const auto& read : reads()) {
    CAPTURE(read.name);
    const auto file = temp_store("dropped");
    auto db = RunStore::open(file);
    REQUIRE(db.ok());
    const Keys k = populate(**db);
    // While this store is open (reopening would create the table again, empty).
    exec_on_store(file, "DROP TABLE " + read.table);
    const std::string message = read.run(**db, k);
    CHECK(message.find(file.string()) != std::string::npos);
    CHECK(message.find("no such table: " + read.table) != std::string::npos);
  }
}

TEST_CASE("a table whose pages are garbage: each read reports the malformed file") {
  for (const auto& read : reads()) {
    CAPTURE(read.name);
    const auto file = temp_store("corrupt");
    Keys k;
    {
      auto db = RunStore::open(file);
      REQUIRE(db.ok());
      k = populate(**db);
    }
    corrupt_table_page(file, read.table);
    auto db = RunStore::open(file);
    REQUIRE_MESSAGE(db.ok(), db.error().message);
    const std::string message = read.run(**db, k);
    CHECK(message.find(file.string()) != std::string::npos);
    CHECK(message.find("malformed") != std::string::npos);
  }
}

TEST_CASE("a store file cut short: opening it or reading from it fails with the file named") {
  const auto file = temp_store("truncated");
  Keys k;
  {
    auto db = RunStore::open(file);
    REQUIRE(db.ok());
    k = populate(**db);
  }
  truncate_store(file, 1);  // the schema page only
  auto db = RunStore::open(file);
  if (!db) {
    CHECK(db.error().message.find(file.string()) != std::string::npos);
    return;
  }
  for (const auto& read : reads()) {
    CAPTURE(read.name);
    const std::string message = read.run(**db, k);
    CHECK(message.find(file.string()) != std::string::npos);
  }
}

TEST_CASE("a store another process holds locked: opening or reading fails after the busy timeout with SQLite's message") {
  // In WAL mode every open connection keeps a shared lock on the file, so the
  // exclusive holder has to come first; the store then waits out its busy timeout.
  const auto file = temp_store("locked");
  Keys k;
  {
    auto db = RunStore::open(file);
    REQUIRE(db.ok());
    k = populate(**db);
  }
  StoreLock lock(file);
  auto db = RunStore::open(file);
  const std::string message = db ? failure_of((*db)->attempts("r")) : db.error().message;
  CHECK(message.find(file.string()) != std::string::npos);
  CHECK(message.find("locked") != std::string::npos);
}

TEST_CASE("finishing an attempt that does not exist is an error, not a silent no-op") {
  const auto file = temp_store("no-attempt");
  auto db = RunStore::open(file);
  REQUIRE(db.ok());
  populate(**db);
  AttemptRecord ghost;
  ghost.id = 4242;
  ghost.status = "solved";
  auto s = (*db)->finish_attempt(ghost);
  REQUIRE(!s.ok());
  CHECK(s.error().code == "store.unknown-attempt");
  CHECK(s.error().message.find(file.string()) != std::string::npos);
}
