#include "kgb/report/loader.h"

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include <nlohmann/json.hpp>

#include "kgb/store/run_store.h"

namespace kgb::report {

TokenUse& TokenUse::operator+=(const TokenUse& o) {
  input += o.input;
  cached_input += o.cached_input;
  cache_write += o.cache_write;
  output += o.output;
  reasoning += o.reasoning;
  return *this;
}

TimeSplit& TimeSplit::operator+=(const TimeSplit& o) {
  llm += o.llm;
  lint += o.lint;
  compile += o.compile;
  run += o.run;
  profile += o.profile;
  other += o.other;
  return *this;
}

std::string task_source(const std::string& task) {
  const auto slash = task.find('/');
  return slash == std::string::npos ? task : task.substr(0, slash);
}

namespace {

using nlohmann::json;

TokenUse tokens_of(const store::TokenCounts& t) {
  TokenUse u;
  u.input = t.input;
  u.cached_input = t.cached_input;
  u.cache_write = t.cache_write;
  u.output = t.output;
  u.reasoning = t.reasoning;
  return u;
}

// The store's RunStore has no listing of LLM and tool calls per run; the
// report reads those two tables itself, through a read-only connection.
class ReadOnlyDb {
 public:
  static Result<std::unique_ptr<ReadOnlyDb>> open(const std::filesystem::path& file) {
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    if (rc != SQLITE_OK) {
      std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
      sqlite3_close(db);
      return make_error("store.sqlite", file.string() + ": " + message);
    }
    sqlite3_busy_timeout(db, 10000);
    return std::unique_ptr<ReadOnlyDb>(new ReadOnlyDb(db));
  }
  ~ReadOnlyDb() { sqlite3_close(db_); }

  // Calls `row` for each result row of `sql` with `run_id` bound to ?1.
  template <class Row>
  Status each(const char* sql, const std::string& run_id, Row row) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK)
      return make_error("store.sqlite", std::string("cannot read the run store: ") + sqlite3_errmsg(db_));
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
    sqlite3_bind_text(stmt, 1, run_id.c_str(), static_cast<int>(run_id.size()), SQLITE_TRANSIENT);
    for (;;) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) return Ok{};
      if (rc != SQLITE_ROW) return make_error("store.sqlite", std::string("cannot read the run store: ") + sqlite3_errmsg(db_));
      row(stmt);
    }
  }

 private:
  explicit ReadOnlyDb(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

std::string column_text(sqlite3_stmt* s, int i) {
  const auto* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(s, i))) : std::string();
}

Evaluation evaluation_of(const store::EvaluationRecord& e) {
  Evaluation ev;
  ev.purpose = e.purpose;
  ev.outcome = e.outcome;
  ev.stage = e.stage;
  ev.passed = e.passed;
  ev.speedup = e.speedup;
  ev.executor = e.executor;
  ev.node = e.node;
  ev.partition = e.partition;
  ev.job_id = e.job_id;
  ev.tries = e.tries;
  const json& v = e.verdict;
  if (!v.is_object()) return ev;
  ev.summary = v.value("summary", "");
  if (v.contains("timings") && v["timings"].is_array())
    for (const auto& t : v["timings"]) {
      CaseTime c;
      c.name = t.value("name", "");
      c.dtype = t.value("dtype", "");
      if (t.contains("candidate") && t["candidate"].is_object()) c.candidate_us = t["candidate"].value("median_us", 0.0);
      if (t.contains("baseline") && t["baseline"].is_object())
        if (const double b = t["baseline"].value("median_us", 0.0); b > 0) c.baseline_us = b;
      c.baseline_kind = t.value("baseline_kind", "");
      c.roofline_fraction = t.value("roofline_fraction", 0.0);
      c.speedup = t.value("speedup", 0.0);
      if (t.contains("speedup_interval") && t["speedup_interval"].is_array() && t["speedup_interval"].size() == 2) {
        c.speedup_low = t["speedup_interval"][0].get<double>();
        c.speedup_high = t["speedup_interval"][1].get<double>();
      }
      c.unstable = t.value("speedup_unstable", false);
      ev.cases.push_back(std::move(c));
    }
  if (v.contains("findings") && v["findings"].is_array())
    for (const auto& f : v["findings"])
      if (f.value("severity", "") == "reject") ev.rejections.push_back(f.value("rule", ""));
  if (v.contains("seconds") && v["seconds"].is_object()) {
    const auto& s = v["seconds"];
    ev.lint_seconds = s.value("lint", 0.0);
    ev.compile_seconds = s.value("compile", 0.0);
    ev.check_seconds = s.value("check", 0.0);
    ev.time_seconds = s.value("time", 0.0);
    ev.total_seconds = s.value("total", 0.0);
  }
  return ev;
}

// Time of one tool call by harness stage (see TimeSplit).
TimeSplit split_of(const ToolCall& call, const Evaluation* ev) {
  TimeSplit t;
  if (ev) {
    t.lint = ev->lint_seconds;
    t.compile = ev->compile_seconds;
    t.run = ev->check_seconds;
    t.profile = ev->time_seconds;
    t.other = std::max(0.0, call.seconds - (t.lint + t.compile + t.run + t.profile));
  } else if (call.tool == "lint") {
    t.lint = call.seconds;
  } else if (call.tool == "compile") {
    t.compile = call.seconds;
  } else {
    t.other = call.seconds;
  }
  return t;
}

}  // namespace

Result<std::vector<std::string>> list_run_ids(const std::filesystem::path& store_file) {
  if (!std::filesystem::exists(store_file)) return make_error("report.no-store", "no run store at " + store_file.string());
  auto db = store::RunStore::open(store_file);
  if (!db) return db.error();
  std::vector<std::string> ids;
  auto listed = (*db)->list_runs();
  if (!listed) return listed.error();
  for (const auto& r : *listed) ids.push_back(r.id);
  return ids;
}

Result<std::vector<Run>> load_runs(const std::filesystem::path& store_file, const std::vector<std::string>& run_ids) {
  if (!std::filesystem::exists(store_file)) return make_error("report.no-store", "no run store at " + store_file.string());
  auto opened = store::RunStore::open(store_file);
  if (!opened) return opened.error();
  store::RunStore& db = **opened;
  auto raw = ReadOnlyDb::open(store_file);
  if (!raw) return raw.error();

  std::vector<Run> runs;
  for (const auto& id : run_ids) {
    auto rec = db.load_run(id);
    if (!rec) return rec.error();
    Run run;
    run.id = rec->id;
    run.status = rec->status;
    run.policy = rec->policy;
    run.provider = rec->provider;
    run.model = rec->model;
    run.platform = rec->platform;
    run.tasks_glob = rec->tasks_glob;
    run.created_at = rec->created_at;
    run.git_revision = rec->git_revision;
    run.kgb_version = rec->kgb_version;
    run.samples = rec->samples;
    run.elapsed_seconds = rec->elapsed_seconds;
    auto read_totals = db.totals(id);
    if (!read_totals) return read_totals.error();
    const store::RunTotals& totals = *read_totals;
    run.tokens = tokens_of(totals.tokens);
    run.cost_usd = totals.cost_usd;
    run.llm_calls = totals.llm_calls;
    run.estimated_usage_calls = totals.estimated_usage_calls;
    run.missing_usage_calls = totals.missing_usage_calls;
    run.agent_usage_calls = totals.agent_usage_calls;
    auto jobs = db.executor_jobs(id);
    if (!jobs) return jobs.error();
    for (const auto& j : *jobs)
      if (j.state == "failed") run.failed_tries.push_back({j.key, j.try_index, j.reason, j.job_id, j.partition, j.node});

    // Evaluations and calls by (attempt, iteration).
    using Key = std::pair<int64_t, int>;
    std::map<std::tuple<int64_t, int, int>, store::EvaluationRecord> evaluations;
    auto evaluation_rows = db.evaluations(id);
    if (!evaluation_rows) return evaluation_rows.error();
    for (auto& e : *evaluation_rows) evaluations.emplace(std::make_tuple(e.attempt_id, e.iteration, e.step), std::move(e));
    struct RawTool {
      int step;
      ToolCall call;
    };
    std::map<Key, std::vector<RawTool>> tools;
    auto tool_rows = (*raw)->each(
        "SELECT attempt_id, iteration, step, tool, outcome, ok, duration_ms FROM tool_calls "
        "WHERE run_id = ?1 AND status = 'done' ORDER BY attempt_id, iteration, step",
        id, [&](sqlite3_stmt* s) {
          ToolCall c;
          c.tool = column_text(s, 3);
          c.outcome = column_text(s, 4);
          c.ok = sqlite3_column_int64(s, 5) != 0;
          c.seconds = static_cast<double>(sqlite3_column_int64(s, 6)) / 1000.0;
          tools[{sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1)}].push_back({sqlite3_column_int(s, 2), std::move(c)});
        });
    if (!tool_rows) return tool_rows.error();
    struct RawLlm {
      int calls = 0;
      double seconds = 0;
    };
    std::map<Key, RawLlm> llm;
    auto llm_rows = (*raw)->each(
        "SELECT attempt_id, iteration, latency_ms FROM llm_calls WHERE run_id = ?1 AND status IN ('done', 'failed')", id,
        [&](sqlite3_stmt* s) {
          auto& l = llm[{sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1)}];
          ++l.calls;
          l.seconds += static_cast<double>(sqlite3_column_int64(s, 2)) / 1000.0;
        });
    if (!llm_rows) return llm_rows.error();

    auto attempts = db.attempts(id);
    if (!attempts) return attempts.error();
    for (const auto& a : *attempts) {
      Attempt at;
      at.task = a.task;
      at.sample = a.sample;
      at.status = a.status;
      at.stop_reason = a.stop_reason;
      at.correct = a.correct;
      at.best_iteration = a.best_iteration;
      at.best_kernel_sha = a.best_kernel;
      if (!a.best_kernel.empty()) {
        auto source = db.kernel(a.best_kernel);
        if (!source) return source.error();
        at.best_kernel = source->value_or("");
      }
      at.tokens = tokens_of(a.tokens);
      at.cost_usd = a.cost_usd;
      at.seconds = a.seconds;
      auto iterations = db.iterations(a.id);
      if (!iterations) return iterations.error();
      for (const auto& ir : *iterations) {
        Iteration it;
        it.index = ir.index;
        it.conversation = ir.conversation;
        it.finished = ir.status == "done";
        it.outcome = ir.outcome;
        it.correct = ir.correct;
        it.speedup = ir.speedup;
        it.tokens = tokens_of(ir.tokens);
        it.cost_usd = ir.cost_usd;
        it.llm_seconds = ir.llm_seconds;
        it.tool_seconds = ir.tool_seconds;
        it.summary = ir.detail.is_object() ? ir.detail.value("summary", "") : "";
        it.feedback = ir.feedback;
        it.kernel_sha = ir.kernel;
        if (auto l = llm.find({a.id, ir.index}); l != llm.end()) {
          it.llm_calls = l->second.calls;
          at.time.llm += l->second.seconds;
        }
        if (auto t = tools.find({a.id, ir.index}); t != tools.end())
          for (auto& [step, call] : t->second) {
            if (auto e = evaluations.find({a.id, ir.index, step}); e != evaluations.end()) {
              call.evaluation = it.evaluations.size();
              it.evaluations.push_back(evaluation_of(e->second));
            }
            at.time += split_of(call, call.evaluation ? &it.evaluations[*call.evaluation] : nullptr);
            it.tool_calls.push_back(call);
          }
        at.iterations.push_back(std::move(it));
      }
      run.attempts.push_back(std::move(at));
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace kgb::report
