// The run store: schema, WAL, idempotent steps, interrupted sessions, kernels,
// totals and export.
#include <doctest/doctest.h>

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <sstream>

#include "kgb/store/run_store.h"

using namespace kgb;
using namespace kgb::store;

namespace {

std::string temp_dir(const std::string& name) {
  std::string pattern = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

std::unique_ptr<RunStore> fresh(const std::string& name) {
  const std::string dir = temp_dir("kgb-store-" + name);
  auto db = RunStore::open(dir + "/runs.db");
  REQUIRE(db.ok());
  return std::move(db.value());
}

RunRecord run_record(const std::string& id) {
  RunRecord r;
  r.id = id;
  r.policy = "refine";
  r.provider = "oracle";
  r.model = "oracle";
  r.platform = "cpu-x86_64";
  r.tasks_glob = "*";
  r.config = {{"run", {{"policy", "refine"}}}};
  r.prompts = {{"system", "You write kernels."}};
  r.git_revision = "abc";
  r.secret_seed = 99;
  return r;
}

}  // namespace

TEST_CASE("the store opens in WAL mode and keeps a schema version") {
  const std::string dir = temp_dir("kgb-store-wal");
  {
    auto db = RunStore::open(dir + "/runs.db");
    REQUIRE(db.ok());
    REQUIRE((*db)->create_run(run_record("r1")).ok());
    CHECK(std::filesystem::exists(dir + "/runs.db-wal"));
  }
  auto again = RunStore::open(dir + "/runs.db");
  REQUIRE(again.ok());
  auto run = (*again)->load_run("r1");
  REQUIRE(run.ok());
  CHECK(run->secret_seed == 99);
  CHECK(run->config["run"]["policy"] == "refine");
  CHECK(!(*again)->load_run("nope").ok());
  CHECK(!(*again)->create_run(run_record("r1")).ok());  // ids are unique
}

TEST_CASE("steps: one done row per key, running rows become interrupted in the next session") {
  auto db = fresh("steps");
  REQUIRE(db->create_run(run_record("r")).ok());
  auto a = db->ensure_attempt("r", "blas/saxpy", 0);
  REQUIRE(a.ok());
  CHECK(*db->ensure_attempt("r", "blas/saxpy", 0) == *a);  // idempotent

  LlmCallRecord call;
  call.run_id = "r";
  call.attempt_id = *a;
  call.iteration = 0;
  call.step = 0;
  call.provider = "oracle";
  call.model = "oracle";
  call.request = {{"messages", nlohmann::json::array()}};
  auto id = db->begin_llm_call(call);
  REQUIRE(id.ok());
  CHECK(!*db->find_llm_call(*a, 0, 0));  // running is not done

  // A killed session: the running row turns interrupted and is kept.
  auto interrupted = db->begin_session("r");
  REQUIRE(interrupted.ok());
  CHECK(*interrupted == 1);

  auto id2 = db->begin_llm_call(call);
  REQUIRE(id2.ok());
  call.id = *id2;
  call.status = "done";
  call.response_text = "hello";
  call.tokens.input = 10;
  call.tokens.output = 5;
  call.cost_usd = 0.01;
  REQUIRE(db->finish_llm_call(call).ok());
  auto found = *db->find_llm_call(*a, 0, 0);
  REQUIRE(found);
  CHECK(found->response_text == "hello");
  CHECK(found->id == *id2);
  // A second done row for the same step is refused by the store itself.
  auto id3 = db->begin_llm_call(call);
  REQUIRE(id3.ok());
  call.id = *id3;
  CHECK(!db->finish_llm_call(call).ok());

  const RunTotals t = *db->totals("r");
  CHECK(t.llm_calls == 1);
  CHECK(t.tokens.input == 10);
  CHECK(t.cost_usd == doctest::Approx(0.01));
}

TEST_CASE("tool calls and their evaluation are written in one transaction; kernels are content-addressed") {
  auto db = fresh("tools");
  REQUIRE(db->create_run(run_record("r")).ok());
  const int64_t a = *db->ensure_attempt("r", "blas/saxpy", 0);
  auto sha = db->put_kernel("int x;");
  REQUIRE(sha.ok());
  CHECK(*sha == sha256_hex("int x;"));
  CHECK(*db->put_kernel("int x;") == *sha);
  CHECK(*db->kernel(*sha) == "int x;");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

  ToolCallRecord tool;
  tool.run_id = "r";
  tool.attempt_id = a;
  tool.iteration = 0;
  tool.step = 1;
  tool.tool = "run";
  tool.kernel = *sha;
  auto id = db->begin_tool_call(tool);
  REQUIRE(id.ok());
  tool.id = *id;
  tool.status = "done";
  tool.outcome = "passed";
  tool.ok = true;
  tool.result = {{"outcome", "passed"}};
  EvaluationRecord e;
  e.run_id = "r";
  e.attempt_id = a;
  e.iteration = 0;
  e.step = 1;
  e.kernel = *sha;
  e.purpose = "run";
  e.outcome = "passed";
  e.stage = "done";
  e.passed = true;
  e.verdict = {{"outcome", "passed"}};
  REQUIRE(db->finish_tool_call(tool, e).ok());
  auto found = *db->find_tool_call(a, 0, 1);
  REQUIRE(found);
  REQUIRE(found->evaluation_id > 0);
  CHECK(db->evaluation(found->evaluation_id).value()->verdict["outcome"] == "passed");
  // The same evaluation step cannot be recorded twice: the tool call stays as it was.
  auto again = db->begin_tool_call(tool);
  REQUIRE(again.ok());
  tool.id = *again;
  CHECK(!db->finish_tool_call(tool, e).ok());
  CHECK(db->evaluations("r")->size() == 1);
}

TEST_CASE("iterations are saved by key; attempts finish with their totals") {
  auto db = fresh("iterations");
  REQUIRE(db->create_run(run_record("r")).ok());
  const int64_t a = *db->ensure_attempt("r", "vllm/silu_and_mul", 1);
  IterationRecord it;
  it.run_id = "r";
  it.attempt_id = a;
  it.index = 0;
  it.status = "running";
  REQUIRE(db->save_iteration(it).ok());
  it.status = "done";
  it.outcome = "compile-error";
  it.feedback = "outcome: compile-error";
  it.tokens.input = 7;
  REQUIRE(db->save_iteration(it).ok());
  const auto its = *db->iterations(a);
  REQUIRE(its.size() == 1);
  CHECK(its[0].outcome == "compile-error");
  CHECK(its[0].tokens.input == 7);

  REQUIRE(db->mark_attempt_running(a).ok());
  auto rec = *db->attempt(a);
  CHECK(rec.status == "running");
  CHECK(!rec.started_at.empty());
  rec.status = "solved";
  rec.correct = true;
  rec.iterations = 1;
  REQUIRE(db->finish_attempt(rec).ok());
  CHECK(db->attempt(a)->finished());
  CHECK(db->totals("r")->solved_attempts == 1);
}

TEST_CASE("export: JSON lines with embedded JSON columns, CSV with quoting, unknown tables refused") {
  auto db = fresh("export");
  REQUIRE(db->create_run(run_record("r")).ok());
  const int64_t a = *db->ensure_attempt("r", "blas/saxpy", 0);
  IterationRecord it;
  it.run_id = "r";
  it.attempt_id = a;
  it.status = "done";
  it.outcome = "wrong-result";
  it.feedback = "line one, with a comma\nline \"two\"";
  it.detail = {{"seed", 1}};
  REQUIRE(db->save_iteration(it).ok());

  std::stringstream jsonl;
  REQUIRE(db->export_table("r", "iterations", ExportFormat::Jsonl, jsonl).ok());
  auto row = nlohmann::json::parse(jsonl.str());
  CHECK(row["outcome"] == "wrong-result");
  CHECK(row["detail"]["seed"] == 1);  // detail_json embedded as JSON
  CHECK(row["feedback"] == it.feedback);

  std::stringstream csv;
  REQUIRE(db->export_table("r", "iterations", ExportFormat::Csv, csv).ok());
  std::string header;
  std::getline(csv, header);
  CHECK(header.find("id,run_id,attempt_id,idx,") == 0);
  const std::string rest = csv.str().substr(header.size() + 1);
  CHECK(rest.find("\"line one, with a comma\nline \"\"two\"\"\"") != std::string::npos);

  std::stringstream runs;
  REQUIRE(db->export_table("r", "runs", ExportFormat::Jsonl, runs).ok());
  CHECK(nlohmann::json::parse(runs.str())["config"]["run"]["policy"] == "refine");
  std::stringstream none;
  CHECK(!db->export_table("r", "passwords", ExportFormat::Jsonl, none).ok());
  CHECK(!db->export_table("nope", "attempts", ExportFormat::Jsonl, none).ok());
}

TEST_CASE("schema 2: usage sources are recorded; a schema-1 store is upgraded in place, a newer one refused") {
  const std::string dir = temp_dir("kgb-store-schema");
  const std::string file = dir + "/runs.db";
  {
    auto db = RunStore::open(file);
    REQUIRE(db.ok());
    REQUIRE((*db)->create_run(run_record("r")).ok());
    auto a = (*db)->ensure_attempt("r", "blas/saxpy", 0);
    REQUIRE(a.ok());
    auto add = [&](int iteration, const std::string& status, const std::string& source, int64_t tokens) {
      LlmCallRecord c;
      c.run_id = "r";
      c.attempt_id = *a;
      c.iteration = iteration;
      c.provider = "p";
      c.model = "m";
      auto id = (*db)->begin_llm_call(c);
      REQUIRE(id.ok());
      c.id = *id;
      c.status = status;
      c.usage_source = source;
      c.usage_estimated = source == "estimated";
      c.tokens.input = tokens;
      REQUIRE((*db)->finish_llm_call(c).ok());
    };
    add(0, "done", "estimated", 100);
    add(1, "done", "reported", 50);
    add(2, "failed", "missing", 0);
    CHECK((*db)->find_llm_call(*a, 0, 0).value()->usage_source == "estimated");
    CHECK((*db)->find_llm_call(*a, 1, 0).value()->usage_source == "reported");
    const auto t = *(*db)->totals("r");
    CHECK(t.estimated_usage_calls == 1);
    CHECK(t.missing_usage_calls == 1);
  }
  // What a schema-1 store looks like: no usage_source column.
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw,
                       "ALTER TABLE llm_calls DROP COLUMN usage_source;"
                       "UPDATE meta SET value = '1' WHERE key = 'schema_version';",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(raw);
  {
    auto db = RunStore::open(file);
    REQUIRE(db.ok());
    auto a = (*db)->attempts("r")->at(0).id;
    CHECK((*db)->find_llm_call(a, 0, 0).value()->usage_source == "estimated");
    CHECK((*db)->find_llm_call(a, 1, 0).value()->usage_source == "reported");
    CHECK((*db)->totals("r")->missing_usage_calls == 1);
  }
  REQUIRE(sqlite3_open(file.c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "UPDATE meta SET value = '3' WHERE key = 'schema_version';", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(raw);
  auto newer = RunStore::open(file);
  REQUIRE_FALSE(newer.ok());
  CHECK(newer.error().message.find("schema 3; this kgb reads schema 2") != std::string::npos);
}
