#include "kgb/store/run_store.h"

#include "sqlite_db.h"
#include "store_internal.h"

namespace kgb::store {

namespace {

// 2: llm_calls.usage_source (reported | estimated | missing | agent: tokens the
//    external agent reported, kgb mcp-server); where each
//    evaluation ran (executor, node, partition, job id, tries) and the
//    executor_jobs table.
constexpr int kSchemaVersion = 2;

// Text columns ending in _json hold JSON; export embeds them as values.
const char* kSchema = R"SQL(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  policy TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, platform TEXT NOT NULL,
  tasks_glob TEXT NOT NULL, samples INTEGER NOT NULL,
  config_json TEXT NOT NULL, prompts_json TEXT NOT NULL,
  git_revision TEXT NOT NULL, platform_json TEXT NOT NULL, kgb_version TEXT NOT NULL,
  secret_seed INTEGER NOT NULL,
  sessions INTEGER NOT NULL DEFAULT 0, elapsed_seconds REAL NOT NULL DEFAULT 0,
  summary_json TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts(
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  task TEXT NOT NULL, sample INTEGER NOT NULL,
  status TEXT NOT NULL, stop_reason TEXT NOT NULL DEFAULT '',
  correct INTEGER NOT NULL DEFAULT 0, best_iteration INTEGER NOT NULL DEFAULT -1,
  best_kernel TEXT NOT NULL DEFAULT '', best_speedup REAL NOT NULL DEFAULT 0,
  iterations INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0, cached_input_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0, seconds REAL NOT NULL DEFAULT 0,
  result_json TEXT NOT NULL DEFAULT '{}',
  started_at TEXT NOT NULL DEFAULT '', finished_at TEXT NOT NULL DEFAULT '',
  UNIQUE(run_id, task, sample));
CREATE TABLE IF NOT EXISTS iterations(
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  attempt_id INTEGER NOT NULL REFERENCES attempts(id),
  idx INTEGER NOT NULL, conversation TEXT NOT NULL, status TEXT NOT NULL,
  outcome TEXT NOT NULL, correct INTEGER NOT NULL, speedup REAL NOT NULL,
  kernel TEXT NOT NULL, feedback TEXT NOT NULL, error_signature TEXT NOT NULL,
  input_tokens INTEGER NOT NULL, cached_input_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL, llm_seconds REAL NOT NULL, tool_seconds REAL NOT NULL,
  detail_json TEXT NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
  UNIQUE(attempt_id, idx));
CREATE TABLE IF NOT EXISTS llm_calls(
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  attempt_id INTEGER NOT NULL REFERENCES attempts(id),
  iteration INTEGER NOT NULL, step INTEGER NOT NULL, status TEXT NOT NULL,
  provider TEXT NOT NULL, model TEXT NOT NULL,
  request_json TEXT NOT NULL, response_text TEXT NOT NULL DEFAULT '', reasoning TEXT NOT NULL DEFAULT '',
  tool_calls_json TEXT NOT NULL DEFAULT '[]', finish_reason TEXT NOT NULL DEFAULT '',
  input_tokens INTEGER NOT NULL DEFAULT 0, cached_input_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0, usage_estimated INTEGER NOT NULL DEFAULT 0,
  usage_source TEXT NOT NULL DEFAULT '',
  cost_usd REAL, latency_ms INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0, retries INTEGER NOT NULL DEFAULT 0,
  error_kind TEXT NOT NULL DEFAULT '', error_message TEXT NOT NULL DEFAULT '', http_status INTEGER NOT NULL DEFAULT 0,
  max_output_tokens INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL, finished_at TEXT NOT NULL DEFAULT '');
CREATE UNIQUE INDEX IF NOT EXISTS llm_calls_done ON llm_calls(attempt_id, iteration, step) WHERE status = 'done';
CREATE INDEX IF NOT EXISTS llm_calls_run ON llm_calls(run_id);
CREATE TABLE IF NOT EXISTS kernels(
  sha256 TEXT PRIMARY KEY, bytes INTEGER NOT NULL, source TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evaluations(
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  attempt_id INTEGER NOT NULL REFERENCES attempts(id),
  iteration INTEGER NOT NULL, step INTEGER NOT NULL,
  kernel TEXT NOT NULL REFERENCES kernels(sha256), purpose TEXT NOT NULL, options_json TEXT NOT NULL,
  outcome TEXT NOT NULL, stage TEXT NOT NULL, passed INTEGER NOT NULL, speedup REAL NOT NULL,
  verdict_json TEXT NOT NULL, seconds REAL NOT NULL, created_at TEXT NOT NULL,
  executor TEXT NOT NULL DEFAULT 'local', node TEXT NOT NULL DEFAULT '', partition_name TEXT NOT NULL DEFAULT '',
  job_id TEXT NOT NULL DEFAULT '', tries INTEGER NOT NULL DEFAULT 1,
  UNIQUE(attempt_id, iteration, step));
CREATE INDEX IF NOT EXISTS evaluations_run ON evaluations(run_id);
CREATE TABLE IF NOT EXISTS tool_calls(
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  attempt_id INTEGER NOT NULL REFERENCES attempts(id),
  iteration INTEGER NOT NULL, step INTEGER NOT NULL, status TEXT NOT NULL,
  tool TEXT NOT NULL, call_id TEXT NOT NULL, arguments_json TEXT NOT NULL, kernel TEXT NOT NULL,
  outcome TEXT NOT NULL DEFAULT '', ok INTEGER NOT NULL DEFAULT 0, result_json TEXT NOT NULL DEFAULT '{}',
  evaluation_id INTEGER REFERENCES evaluations(id), duration_ms INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL, finished_at TEXT NOT NULL DEFAULT '');
CREATE UNIQUE INDEX IF NOT EXISTS tool_calls_done ON tool_calls(attempt_id, iteration, step) WHERE status = 'done';
CREATE INDEX IF NOT EXISTS tool_calls_run ON tool_calls(run_id);
CREATE INDEX IF NOT EXISTS iterations_run ON iterations(run_id);
CREATE TABLE IF NOT EXISTS executor_jobs(
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  job_key TEXT NOT NULL, attempt_id INTEGER, iteration INTEGER, step INTEGER, try_index INTEGER NOT NULL,
  executor TEXT NOT NULL, state TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '',
  job_id TEXT NOT NULL DEFAULT '', partition_name TEXT NOT NULL DEFAULT '', node TEXT NOT NULL DEFAULT '',
  queued_at TEXT NOT NULL DEFAULT '', started_at TEXT NOT NULL DEFAULT '', finished_at TEXT NOT NULL DEFAULT '',
  seconds REAL NOT NULL DEFAULT 0,
  UNIQUE(run_id, job_key, try_index));
CREATE INDEX IF NOT EXISTS executor_jobs_run ON executor_jobs(run_id);
)SQL";

// Schema 1 -> 2: where each evaluation ran (the executor_jobs table is created by kSchema).
// Columns schema 2 added to schema-1 tables. Each is added only where it is
// missing: stores written by builds between the two additions have some.
struct AddedColumn {
  const char* table;
  const char* column;
  const char* definition;
};
constexpr AddedColumn kAddedIn2[] = {
    {"evaluations", "executor", "TEXT NOT NULL DEFAULT 'local'"},
    {"evaluations", "node", "TEXT NOT NULL DEFAULT ''"},
    {"evaluations", "partition_name", "TEXT NOT NULL DEFAULT ''"},
    {"evaluations", "job_id", "TEXT NOT NULL DEFAULT ''"},
    {"evaluations", "tries", "INTEGER NOT NULL DEFAULT 1"},
    {"llm_calls", "usage_source", "TEXT NOT NULL DEFAULT ''"},
};

Result<bool> has_column(Database& d, const std::string& table, const std::string& column) {
  auto info = d.prepare("SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?");
  if (!info) return info.error();
  (*info)->bind(1, table).bind(2, column);
  const bool found = (*info)->step() && (*info)->integer(0) > 0;
  info.value().reset();
  return found;
}

Status upgrade_from_1(Database& d) {
  for (const auto& added : kAddedIn2) {
    auto present = has_column(d, added.table, added.column);
    if (!present) return present.error();
    if (*present) continue;
    if (auto s = d.exec(std::string("ALTER TABLE ") + added.table + " ADD COLUMN " + added.column + " " +
                        added.definition + ";");
        !s)
      return s;
    if (std::string(added.column) == "usage_source") {
      if (auto s = d.exec("UPDATE llm_calls SET usage_source = CASE WHEN usage_estimated = 1 THEN 'estimated' "
                          "WHEN input_tokens + output_tokens > 0 THEN 'reported' WHEN status = 'running' THEN '' "
                          "ELSE 'missing' END;");
          !s)
        return s;
    }
  }
  return d.exec("UPDATE meta SET value = '2' WHERE key = 'schema_version';");
}

}  // namespace

nlohmann::json parse_json_column(const std::string& text) {
  if (text.empty()) return nlohmann::json::object();
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? nlohmann::json(text) : j;
}

std::string dump_json_column(const nlohmann::json& j) {
  // Replies may hold any bytes: never throw on invalid UTF-8.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

RunStore::RunStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunStore::~RunStore() = default;

const std::filesystem::path& RunStore::file() const { return impl_->file; }

Result<std::unique_ptr<RunStore>> RunStore::open(const std::filesystem::path& file) {
  if (file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
  }
  auto db = Database::open(file);
  if (!db) return db.error();
  auto impl = std::make_unique<Impl>();
  impl->file = file;
  impl->db = std::move(db.value());
  Database& d = *impl->db;
  // WAL: readers never block the writer and a killed writer loses nothing
  // committed. NORMAL sync is durable against process death (not power loss).
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"})
    if (auto s = d.exec(pragma); !s) return make_error("store.open", file.string() + ": " + s.error().message);
  {
    Database::Transaction tx(d);
    if (!tx.ok()) return make_error("store.open", file.string() + ": " + tx.error());
    if (auto s = d.exec(kSchema); !s) return make_error("store.schema", file.string() + ": " + s.error().message);
    auto version = d.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
    auto opening = [&](const Error& e) { return make_error("store.open", file.string() + ": " + e.message); };
    if (!version) return opening(version.error());
    if ((*version)->step()) {
      const int found = std::stoi((*version)->text(0));
      version.value().reset();
      if (found == 1) {
        // Additive: the columns, filled from what schema 1 recorded.
        if (auto s = upgrade_from_1(d); !s)
          return make_error("store.schema", file.string() + ": upgrading the run store to schema 2: " + s.error().message);
      } else if (found != kSchemaVersion) {
        return make_error("store.schema", file.string() + " has run-store schema " + std::to_string(found) +
                                              "; this kgb reads schema " + std::to_string(kSchemaVersion));
      }
    } else {
      if (auto st = (*version)->status(); !st) return opening(st.error());
      auto insert = d.prepare("INSERT INTO meta(key, value) VALUES('schema_version', ?)");
      if (!insert) return opening(insert.error());
      if (auto s = (*insert)->bind(1, std::to_string(kSchemaVersion)).run(); !s) return opening(s.error());
    }
    version.value().reset();
    if (auto s = tx.commit(); !s) return opening(s.error());
  }
  return std::unique_ptr<RunStore>(new RunStore(std::move(impl)));
}

// ---------------------------------------------------------------------------
// Runs

namespace {

RunRecord read_run(const Statement& s) {
  RunRecord r;
  r.id = s.text(0);
  r.status = s.text(1);
  r.policy = s.text(2);
  r.provider = s.text(3);
  r.model = s.text(4);
  r.platform = s.text(5);
  r.tasks_glob = s.text(6);
  r.samples = static_cast<int>(s.integer(7));
  r.config = parse_json_column(s.text(8));
  r.prompts = parse_json_column(s.text(9));
  r.git_revision = s.text(10);
  r.platform_facts = parse_json_column(s.text(11));
  r.kgb_version = s.text(12);
  r.secret_seed = static_cast<uint64_t>(s.integer(13));
  r.sessions = static_cast<int>(s.integer(14));
  r.elapsed_seconds = s.real(15);
  r.summary = parse_json_column(s.text(16));
  r.created_at = s.text(17);
  r.updated_at = s.text(18);
  return r;
}

constexpr const char* kRunColumns =
    "id, status, policy, provider, model, platform, tasks_glob, samples, config_json, prompts_json, git_revision, "
    "platform_json, kgb_version, secret_seed, sessions, elapsed_seconds, summary_json, created_at, updated_at";

}  // namespace

Status RunStore::create_run(const RunRecord& run) {
  auto s = impl_->db->prepare(std::string("INSERT INTO runs(") + kRunColumns +
                              ") VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!s) return s.error();
  const std::string now = utc_now();
  auto& st = **s;
  st.bind(1, run.id).bind(2, run.status).bind(3, run.policy).bind(4, run.provider).bind(5, run.model);
  st.bind(6, run.platform).bind(7, run.tasks_glob).bind(8, run.samples).bind(9, dump_json_column(run.config));
  st.bind(10, dump_json_column(run.prompts)).bind(11, run.git_revision).bind(12, dump_json_column(run.platform_facts));
  st.bind(13, run.kgb_version).bind(14, static_cast<int64_t>(run.secret_seed)).bind(15, run.sessions);
  st.bind(16, run.elapsed_seconds).bind(17, dump_json_column(run.summary)).bind(18, now).bind(19, now);
  if (auto r = st.run(); !r)
    return make_error("store.run", "cannot create run " + run.id + ": " + r.error().message);
  return Ok{};
}

Result<RunRecord> RunStore::load_run(const std::string& id) {
  auto s = impl_->db->prepare(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?");
  if (!s) return s.error();
  (*s)->bind(1, id);
  if (!(*s)->step()) {
    if (auto st = (*s)->status(); !st) return read_error(*impl_, "run '" + id + "'", st.error());
    return make_error("store.unknown-run", "no run '" + id + "' in " + impl_->file.string());
  }
  return read_run(**s);
}

Result<std::vector<RunRecord>> RunStore::list_runs() {
  std::vector<RunRecord> out;
  auto s = impl_->db->prepare(std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY created_at, id");
  if (!s) return read_error(*impl_, "the runs", s.error());
  while ((*s)->step()) out.push_back(read_run(**s));
  if (auto st = (*s)->status(); !st) return read_error(*impl_, "the runs", st.error());
  return out;
}

Result<int> RunStore::begin_session(const std::string& run_id) {
  Database& d = *impl_->db;
  Database::Transaction tx(d);
  if (!tx.ok()) return make_error("store.sqlite", tx.error());
  int interrupted = 0;
  const std::string now = utc_now();
  for (const char* table : {"llm_calls", "tool_calls"}) {
    auto s = d.prepare(std::string("UPDATE ") + table +
                       " SET status = 'interrupted', finished_at = ? WHERE run_id = ? AND status = 'running'");
    if (!s) return s.error();
    if (auto r = (*s)->bind(1, now).bind(2, run_id).run(); !r) return r.error();
    interrupted += d.changes();
  }
  auto upd = d.prepare("UPDATE runs SET sessions = sessions + 1, status = 'running', updated_at = ? WHERE id = ?");
  if (!upd) return upd.error();
  if (auto r = (*upd)->bind(1, now).bind(2, run_id).run(); !r) return r.error();
  if (d.changes() != 1) return make_error("store.unknown-run", "no run '" + run_id + "' in " + impl_->file.string());
  upd.value().reset();
  if (auto c = tx.commit(); !c) return c.error();
  return interrupted;
}

Status RunStore::end_session(const std::string& run_id, const std::string& status, double session_seconds,
                             const nlohmann::json& summary) {
  auto s = impl_->db->prepare(
      "UPDATE runs SET status = ?, elapsed_seconds = elapsed_seconds + ?, summary_json = ?, updated_at = ? WHERE id = ?");
  if (!s) return s.error();
  return (*s)->bind(1, status).bind(2, session_seconds).bind(3, dump_json_column(summary)).bind(4, utc_now()).bind(5, run_id).run();
}

// ---------------------------------------------------------------------------
// Attempts

namespace {

constexpr const char* kAttemptColumns =
    "id, run_id, task, sample, status, stop_reason, correct, best_iteration, best_kernel, best_speedup, iterations, "
    "input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost_usd, seconds, "
    "result_json, started_at, finished_at";

AttemptRecord read_attempt(const Statement& s) {
  AttemptRecord a;
  a.id = s.integer(0);
  a.run_id = s.text(1);
  a.task = s.text(2);
  a.sample = static_cast<int>(s.integer(3));
  a.status = s.text(4);
  a.stop_reason = s.text(5);
  a.correct = s.integer(6) != 0;
  a.best_iteration = static_cast<int>(s.integer(7));
  a.best_kernel = s.text(8);
  a.best_speedup = s.real(9);
  a.iterations = static_cast<int>(s.integer(10));
  a.tokens.input = s.integer(11);
  a.tokens.cached_input = s.integer(12);
  a.tokens.cache_write = s.integer(13);
  a.tokens.output = s.integer(14);
  a.tokens.reasoning = s.integer(15);
  a.cost_usd = s.real(16);
  a.seconds = s.real(17);
  a.result = parse_json_column(s.text(18));
  a.started_at = s.text(19);
  a.finished_at = s.text(20);
  return a;
}

}  // namespace

Result<int64_t> RunStore::ensure_attempt(const std::string& run_id, const std::string& task, int sample) {
  Database& d = *impl_->db;
  {
    auto ins = d.prepare("INSERT INTO attempts(run_id, task, sample, status) VALUES(?,?,?,'pending') "
                         "ON CONFLICT(run_id, task, sample) DO NOTHING");
    if (!ins) return ins.error();
    if (auto r = (*ins)->bind(1, run_id).bind(2, task).bind(3, sample).run(); !r) return r.error();
  }
  auto sel = d.prepare("SELECT id FROM attempts WHERE run_id = ? AND task = ? AND sample = ?");
  if (!sel) return sel.error();
  (*sel)->bind(1, run_id).bind(2, task).bind(3, sample);
  if (!(*sel)->step()) return make_error("store.sqlite", "attempt row vanished");
  return (*sel)->integer(0);
}

Result<AttemptRecord> RunStore::add_attempt(const std::string& run_id, const std::string& task) {
  Database& d = *impl_->db;
  {
    auto ins = d.prepare(
        "INSERT INTO attempts(run_id, task, sample, status) "
        "SELECT ?1, ?2, COALESCE(MAX(sample) + 1, 0), 'pending' FROM attempts WHERE run_id = ?1 AND task = ?2");
    if (!ins) return ins.error();
    if (auto r = (*ins)->bind(1, run_id).bind(2, task).run(); !r) return r.error();
  }
  return attempt(d.last_insert_id());
}

Result<std::vector<AttemptRecord>> RunStore::attempts(const std::string& run_id) {
  std::vector<AttemptRecord> out;
  const std::string what = "the attempts of run '" + run_id + "'";
  auto s = impl_->db->prepare(std::string("SELECT ") + kAttemptColumns + " FROM attempts WHERE run_id = ? ORDER BY id");
  if (!s) return read_error(*impl_, what, s.error());
  (*s)->bind(1, run_id);
  while ((*s)->step()) out.push_back(read_attempt(**s));
  if (auto st = (*s)->status(); !st) return read_error(*impl_, what, st.error());
  return out;
}

Result<AttemptRecord> RunStore::attempt(int64_t id) {
  auto s = impl_->db->prepare(std::string("SELECT ") + kAttemptColumns + " FROM attempts WHERE id = ?");
  if (!s) return s.error();
  (*s)->bind(1, id);
  if (!(*s)->step()) {
    if (auto st = (*s)->status(); !st) return read_error(*impl_, "attempt " + std::to_string(id), st.error());
    return make_error("store.unknown-attempt", "no attempt " + std::to_string(id) + " in " + impl_->file.string());
  }
  return read_attempt(**s);
}

Status RunStore::mark_attempt_running(int64_t id) {
  auto s = impl_->db->prepare(
      "UPDATE attempts SET status = 'running', started_at = CASE WHEN started_at = '' THEN ? ELSE started_at END "
      "WHERE id = ? AND status IN ('pending', 'running')");
  if (!s) return s.error();
  return (*s)->bind(1, utc_now()).bind(2, id).run();
}

Status RunStore::finish_attempt(const AttemptRecord& a) {
  auto s = impl_->db->prepare(
      "UPDATE attempts SET status = ?, stop_reason = ?, correct = ?, best_iteration = ?, best_kernel = ?, "
      "best_speedup = ?, iterations = ?, input_tokens = ?, cached_input_tokens = ?, cache_write_tokens = ?, "
      "output_tokens = ?, reasoning_tokens = ?, cost_usd = ?, seconds = ?, result_json = ?, finished_at = ? WHERE id = ?");
  if (!s) return s.error();
  auto& st = **s;
  st.bind(1, a.status).bind(2, a.stop_reason).bind(3, a.correct).bind(4, a.best_iteration).bind(5, a.best_kernel);
  st.bind(6, a.best_speedup).bind(7, a.iterations).bind(8, a.tokens.input).bind(9, a.tokens.cached_input);
  st.bind(10, a.tokens.cache_write).bind(11, a.tokens.output).bind(12, a.tokens.reasoning).bind(13, a.cost_usd);
  st.bind(14, a.seconds).bind(15, dump_json_column(a.result)).bind(16, a.finished_at.empty() ? utc_now() : a.finished_at);
  st.bind(17, a.id);
  if (auto r = st.run(); !r)
    return make_error("store.write", "run store " + impl_->file.string() + ": cannot finish attempt " +
                                         std::to_string(a.id) + ": " + r.error().message);
  if (impl_->db->changes() != 1)
    return make_error("store.unknown-attempt", "cannot finish attempt " + std::to_string(a.id) + ": no such attempt in " +
                                                   impl_->file.string());
  return Ok{};
}

// ---------------------------------------------------------------------------
// Iterations

namespace {

constexpr const char* kIterationColumns =
    "id, run_id, attempt_id, idx, conversation, status, outcome, correct, speedup, kernel, feedback, error_signature, "
    "input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost_usd, llm_seconds, "
    "tool_seconds, detail_json, started_at, finished_at";

}  // namespace

Status RunStore::save_iteration(const IterationRecord& it) {
  auto s = impl_->db->prepare(
      "INSERT INTO iterations(run_id, attempt_id, idx, conversation, status, outcome, correct, speedup, kernel, "
      "feedback, error_signature, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, "
      "reasoning_tokens, cost_usd, llm_seconds, tool_seconds, detail_json, started_at, finished_at) "
      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(attempt_id, idx) DO UPDATE SET conversation = excluded.conversation, status = excluded.status, "
      "outcome = excluded.outcome, correct = excluded.correct, speedup = excluded.speedup, kernel = excluded.kernel, "
      "feedback = excluded.feedback, error_signature = excluded.error_signature, input_tokens = excluded.input_tokens, "
      "cached_input_tokens = excluded.cached_input_tokens, cache_write_tokens = excluded.cache_write_tokens, "
      "output_tokens = excluded.output_tokens, reasoning_tokens = excluded.reasoning_tokens, "
      "cost_usd = excluded.cost_usd, llm_seconds = excluded.llm_seconds, tool_seconds = excluded.tool_seconds, "
      "detail_json = excluded.detail_json, finished_at = excluded.finished_at");
  if (!s) return s.error();
  auto& st = **s;
  st.bind(1, it.run_id).bind(2, it.attempt_id).bind(3, it.index).bind(4, it.conversation).bind(5, it.status);
  st.bind(6, it.outcome).bind(7, it.correct).bind(8, it.speedup).bind(9, it.kernel).bind(10, it.feedback);
  st.bind(11, it.error_signature).bind(12, it.tokens.input).bind(13, it.tokens.cached_input);
  st.bind(14, it.tokens.cache_write).bind(15, it.tokens.output).bind(16, it.tokens.reasoning).bind(17, it.cost_usd);
  st.bind(18, it.llm_seconds).bind(19, it.tool_seconds).bind(20, dump_json_column(it.detail));
  st.bind(21, it.started_at.empty() ? utc_now() : it.started_at).bind(22, it.finished_at);
  return st.run();
}

Result<std::vector<IterationRecord>> RunStore::iterations(int64_t attempt_id) {
  std::vector<IterationRecord> out;
  const std::string what = "the iterations of attempt " + std::to_string(attempt_id);
  auto s = impl_->db->prepare(std::string("SELECT ") + kIterationColumns + " FROM iterations WHERE attempt_id = ? ORDER BY idx");
  if (!s) return read_error(*impl_, what, s.error());
  (*s)->bind(1, attempt_id);
  while ((*s)->step()) {
    const auto& st = **s;
    IterationRecord r;
    r.id = st.integer(0);
    r.run_id = st.text(1);
    r.attempt_id = st.integer(2);
    r.index = static_cast<int>(st.integer(3));
    r.conversation = st.text(4);
    r.status = st.text(5);
    r.outcome = st.text(6);
    r.correct = st.integer(7) != 0;
    r.speedup = st.real(8);
    r.kernel = st.text(9);
    r.feedback = st.text(10);
    r.error_signature = st.text(11);
    r.tokens.input = st.integer(12);
    r.tokens.cached_input = st.integer(13);
    r.tokens.cache_write = st.integer(14);
    r.tokens.output = st.integer(15);
    r.tokens.reasoning = st.integer(16);
    r.cost_usd = st.real(17);
    r.llm_seconds = st.real(18);
    r.tool_seconds = st.real(19);
    r.detail = parse_json_column(st.text(20));
    r.started_at = st.text(21);
    r.finished_at = st.text(22);
    out.push_back(std::move(r));
  }
  if (auto st = (*s)->status(); !st) return read_error(*impl_, what, st.error());
  return out;
}

// ---------------------------------------------------------------------------
// LLM calls

namespace {

constexpr const char* kLlmColumns =
    "id, run_id, attempt_id, iteration, step, status, provider, model, request_json, response_text, reasoning, "
    "tool_calls_json, finish_reason, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, "
    "reasoning_tokens, usage_estimated, cost_usd, latency_ms, attempts, retries, error_kind, error_message, "
    "http_status, max_output_tokens, started_at, finished_at, usage_source";

LlmCallRecord read_llm_call(const Statement& s) {
  LlmCallRecord c;
  c.id = s.integer(0);
  c.run_id = s.text(1);
  c.attempt_id = s.integer(2);
  c.iteration = static_cast<int>(s.integer(3));
  c.step = static_cast<int>(s.integer(4));
  c.status = s.text(5);
  c.provider = s.text(6);
  c.model = s.text(7);
  c.request = parse_json_column(s.text(8));
  c.response_text = s.text(9);
  c.reasoning = s.text(10);
  c.tool_calls = parse_json_column(s.text(11));
  c.finish_reason = s.text(12);
  c.tokens.input = s.integer(13);
  c.tokens.cached_input = s.integer(14);
  c.tokens.cache_write = s.integer(15);
  c.tokens.output = s.integer(16);
  c.tokens.reasoning = s.integer(17);
  c.usage_estimated = s.integer(18) != 0;
  if (!s.is_null(19)) c.cost_usd = s.real(19);
  c.latency_ms = s.integer(20);
  c.attempts = static_cast<int>(s.integer(21));
  c.retries = static_cast<int>(s.integer(22));
  c.error_kind = s.text(23);
  c.error_message = s.text(24);
  c.http_status = static_cast<int>(s.integer(25));
  c.max_output_tokens = s.integer(26);
  c.started_at = s.text(27);
  c.finished_at = s.text(28);
  c.usage_source = s.text(29);
  return c;
}

}  // namespace

Result<int64_t> RunStore::begin_llm_call(const LlmCallRecord& c) {
  auto s = impl_->db->prepare(
      "INSERT INTO llm_calls(run_id, attempt_id, iteration, step, status, provider, model, request_json, "
      "max_output_tokens, started_at) VALUES(?,?,?,?,'running',?,?,?,?,?)");
  if (!s) return s.error();
  auto& st = **s;
  st.bind(1, c.run_id).bind(2, c.attempt_id).bind(3, c.iteration).bind(4, c.step).bind(5, c.provider).bind(6, c.model);
  st.bind(7, dump_json_column(c.request)).bind(8, c.max_output_tokens).bind(9, c.started_at.empty() ? utc_now() : c.started_at);
  if (auto r = st.run(); !r) return r.error();
  return impl_->db->last_insert_id();
}

Status RunStore::finish_llm_call(const LlmCallRecord& c) {
  auto s = impl_->db->prepare(
      "UPDATE llm_calls SET status = ?, response_text = ?, reasoning = ?, tool_calls_json = ?, finish_reason = ?, "
      "input_tokens = ?, cached_input_tokens = ?, cache_write_tokens = ?, output_tokens = ?, reasoning_tokens = ?, "
      "usage_estimated = ?, cost_usd = ?, latency_ms = ?, attempts = ?, retries = ?, error_kind = ?, "
      "error_message = ?, http_status = ?, finished_at = ?, usage_source = ? WHERE id = ?");
  if (!s) return s.error();
  auto& st = **s;
  st.bind(1, c.status).bind(2, c.response_text).bind(3, c.reasoning).bind(4, dump_json_column(c.tool_calls));
  st.bind(5, c.finish_reason).bind(6, c.tokens.input).bind(7, c.tokens.cached_input).bind(8, c.tokens.cache_write);
  st.bind(9, c.tokens.output).bind(10, c.tokens.reasoning).bind(11, c.usage_estimated).bind(12, c.cost_usd);
  st.bind(13, c.latency_ms).bind(14, c.attempts).bind(15, c.retries).bind(16, c.error_kind).bind(17, c.error_message);
  const std::string source = !c.usage_source.empty() ? c.usage_source : c.usage_estimated ? "estimated" : "reported";
  st.bind(18, c.http_status).bind(19, utc_now()).bind(20, source).bind(21, c.id);
  return st.run();
}

Result<std::optional<LlmCallRecord>> RunStore::find_llm_call(int64_t attempt_id, int iteration, int step) {
  const std::string what = "the LLM call of attempt " + std::to_string(attempt_id) + " iteration " +
                           std::to_string(iteration) + " step " + std::to_string(step);
  auto s = impl_->db->prepare(std::string("SELECT ") + kLlmColumns +
                              " FROM llm_calls WHERE attempt_id = ? AND iteration = ? AND step = ? AND status = 'done'");
  if (!s) return read_error(*impl_, what, s.error());
  (*s)->bind(1, attempt_id).bind(2, iteration).bind(3, step);
  if (!(*s)->step()) {
    if (auto st = (*s)->status(); !st) return read_error(*impl_, what, st.error());
    return std::optional<LlmCallRecord>();
  }
  return std::optional<LlmCallRecord>(read_llm_call(**s));
}

// ---------------------------------------------------------------------------
// Tool calls and evaluations

namespace {

constexpr const char* kToolColumns =
    "id, run_id, attempt_id, iteration, step, status, tool, call_id, arguments_json, kernel, outcome, ok, result_json, "
    "evaluation_id, duration_ms, started_at, finished_at";

constexpr const char* kEvaluationColumns =
    "id, run_id, attempt_id, iteration, step, kernel, purpose, options_json, outcome, stage, passed, speedup, "
    "verdict_json, seconds, created_at, executor, node, partition_name, job_id, tries";

EvaluationRecord read_evaluation(const Statement& s) {
  EvaluationRecord e;
  e.id = s.integer(0);
  e.run_id = s.text(1);
  e.attempt_id = s.integer(2);
  e.iteration = static_cast<int>(s.integer(3));
  e.step = static_cast<int>(s.integer(4));
  e.kernel = s.text(5);
  e.purpose = s.text(6);
  e.options = parse_json_column(s.text(7));
  e.outcome = s.text(8);
  e.stage = s.text(9);
  e.passed = s.integer(10) != 0;
  e.speedup = s.real(11);
  e.verdict = parse_json_column(s.text(12));
  e.seconds = s.real(13);
  e.created_at = s.text(14);
  e.executor = s.text(15);
  e.node = s.text(16);
  e.partition = s.text(17);
  e.job_id = s.text(18);
  e.tries = static_cast<int>(s.integer(19));
  return e;
}

}  // namespace

Result<int64_t> RunStore::begin_tool_call(const ToolCallRecord& c) {
  auto s = impl_->db->prepare(
      "INSERT INTO tool_calls(run_id, attempt_id, iteration, step, status, tool, call_id, arguments_json, kernel, "
      "started_at) VALUES(?,?,?,?,'running',?,?,?,?,?)");
  if (!s) return s.error();
  auto& st = **s;
  st.bind(1, c.run_id).bind(2, c.attempt_id).bind(3, c.iteration).bind(4, c.step).bind(5, c.tool).bind(6, c.call_id);
  st.bind(7, dump_json_column(c.arguments)).bind(8, c.kernel).bind(9, c.started_at.empty() ? utc_now() : c.started_at);
  if (auto r = st.run(); !r) return r.error();
  return impl_->db->last_insert_id();
}

Status RunStore::finish_tool_call(ToolCallRecord c, const std::optional<EvaluationRecord>& evaluation) {
  Database& d = *impl_->db;
  Database::Transaction tx(d);
  if (!tx.ok()) return make_error("store.sqlite", tx.error());
  if (evaluation) {
    auto s = d.prepare(
        "INSERT INTO evaluations(run_id, attempt_id, iteration, step, kernel, purpose, options_json, outcome, stage, "
        "passed, speedup, verdict_json, seconds, created_at, executor, node, partition_name, job_id, tries) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s) return s.error();
    const auto& e = *evaluation;
    auto& st = **s;
    st.bind(1, e.run_id).bind(2, e.attempt_id).bind(3, e.iteration).bind(4, e.step).bind(5, e.kernel).bind(6, e.purpose);
    st.bind(7, dump_json_column(e.options)).bind(8, e.outcome).bind(9, e.stage).bind(10, e.passed).bind(11, e.speedup);
    st.bind(12, dump_json_column(e.verdict)).bind(13, e.seconds).bind(14, utc_now()).bind(15, e.executor);
    st.bind(16, e.node).bind(17, e.partition).bind(18, e.job_id).bind(19, e.tries);
    if (auto r = st.run(); !r) return r.error();
    c.evaluation_id = d.last_insert_id();
  }
  auto s = d.prepare(
      "UPDATE tool_calls SET status = ?, outcome = ?, ok = ?, result_json = ?, evaluation_id = ?, duration_ms = ?, "
      "finished_at = ? WHERE id = ?");
  if (!s) return s.error();
  auto& st = **s;
  st.bind(1, c.status).bind(2, c.outcome).bind(3, c.ok).bind(4, dump_json_column(c.result));
  if (c.evaluation_id) st.bind(5, c.evaluation_id);
  else st.bind_null(5);
  st.bind(6, c.duration_ms).bind(7, utc_now()).bind(8, c.id);
  if (auto r = st.run(); !r) return r.error();
  s.value().reset();
  return tx.commit();
}

Result<std::optional<ToolCallRecord>> RunStore::find_tool_call(int64_t attempt_id, int iteration, int step) {
  const std::string what = "the tool call of attempt " + std::to_string(attempt_id) + " iteration " +
                           std::to_string(iteration) + " step " + std::to_string(step);
  auto s = impl_->db->prepare(std::string("SELECT ") + kToolColumns +
                              " FROM tool_calls WHERE attempt_id = ? AND iteration = ? AND step = ? AND status = 'done'");
  if (!s) return read_error(*impl_, what, s.error());
  (*s)->bind(1, attempt_id).bind(2, iteration).bind(3, step);
  if (!(*s)->step()) {
    if (auto st = (*s)->status(); !st) return read_error(*impl_, what, st.error());
    return std::optional<ToolCallRecord>();
  }
  const auto& st = **s;
  ToolCallRecord c;
  c.id = st.integer(0);
  c.run_id = st.text(1);
  c.attempt_id = st.integer(2);
  c.iteration = static_cast<int>(st.integer(3));
  c.step = static_cast<int>(st.integer(4));
  c.status = st.text(5);
  c.tool = st.text(6);
  c.call_id = st.text(7);
  c.arguments = parse_json_column(st.text(8));
  c.kernel = st.text(9);
  c.outcome = st.text(10);
  c.ok = st.integer(11) != 0;
  c.result = parse_json_column(st.text(12));
  c.evaluation_id = st.is_null(13) ? 0 : st.integer(13);
  c.duration_ms = st.integer(14);
  c.started_at = st.text(15);
  c.finished_at = st.text(16);
  return std::optional<ToolCallRecord>(std::move(c));
}

Result<std::optional<EvaluationRecord>> RunStore::evaluation(int64_t id) {
  const std::string what = "evaluation " + std::to_string(id);
  auto s = impl_->db->prepare(std::string("SELECT ") + kEvaluationColumns + " FROM evaluations WHERE id = ?");
  if (!s) return read_error(*impl_, what, s.error());
  (*s)->bind(1, id);
  if (!(*s)->step()) {
    if (auto st = (*s)->status(); !st) return read_error(*impl_, what, st.error());
    return std::optional<EvaluationRecord>();
  }
  return std::optional<EvaluationRecord>(read_evaluation(**s));
}

Result<std::vector<EvaluationRecord>> RunStore::evaluations(const std::string& run_id) {
  std::vector<EvaluationRecord> out;
  const std::string what = "the evaluations of run '" + run_id + "'";
  auto s = impl_->db->prepare(std::string("SELECT ") + kEvaluationColumns + " FROM evaluations WHERE run_id = ? ORDER BY id");
  if (!s) return read_error(*impl_, what, s.error());
  (*s)->bind(1, run_id);
  while ((*s)->step()) out.push_back(read_evaluation(**s));
  if (auto st = (*s)->status(); !st) return read_error(*impl_, what, st.error());
  return out;
}

// ---------------------------------------------------------------------------
// Executor jobs

Status RunStore::record_executor_job(const ExecutorJobRecord& j) {
  // One row per try; later states fill in what they know and keep the rest.
  auto s = impl_->db->prepare(
      "INSERT INTO executor_jobs(run_id, job_key, attempt_id, iteration, step, try_index, executor, state, reason, "
      "job_id, partition_name, node, queued_at, started_at, finished_at, seconds) "
      "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,"
      "CASE WHEN ?8 = 'queued' THEN ?13 ELSE '' END, CASE WHEN ?8 = 'running' THEN ?13 ELSE '' END, "
      "CASE WHEN ?8 IN ('done','failed','withdrawn') THEN ?13 ELSE '' END, ?14) "
      "ON CONFLICT(run_id, job_key, try_index) DO UPDATE SET state = excluded.state, "
      "reason = CASE WHEN excluded.reason = '' THEN reason ELSE excluded.reason END, "
      "job_id = CASE WHEN excluded.job_id = '' THEN job_id ELSE excluded.job_id END, "
      "partition_name = CASE WHEN excluded.partition_name = '' THEN partition_name ELSE excluded.partition_name END, "
      "node = CASE WHEN excluded.node = '' THEN node ELSE excluded.node END, "
      "queued_at = CASE WHEN queued_at = '' THEN excluded.queued_at ELSE queued_at END, "
      "started_at = CASE WHEN started_at = '' THEN excluded.started_at ELSE started_at END, "
      "finished_at = CASE WHEN excluded.finished_at = '' THEN finished_at ELSE excluded.finished_at END, "
      "seconds = CASE WHEN excluded.seconds > 0 THEN excluded.seconds ELSE seconds END");
  if (!s) return s.error();
  auto& st = **s;
  st.bind(1, j.run_id).bind(2, j.key);
  if (j.attempt_id) st.bind(3, *j.attempt_id);
  else st.bind_null(3);
  if (j.iteration) st.bind(4, *j.iteration);
  else st.bind_null(4);
  if (j.step) st.bind(5, *j.step);
  else st.bind_null(5);
  st.bind(6, j.try_index).bind(7, j.executor).bind(8, j.state).bind(9, j.reason).bind(10, j.job_id);
  st.bind(11, j.partition).bind(12, j.node).bind(13, j.at.empty() ? utc_now() : j.at).bind(14, j.seconds);
  return st.run();
}

Result<std::vector<ExecutorJobRecord>> RunStore::executor_jobs(const std::string& run_id) {
  std::vector<ExecutorJobRecord> out;
  const std::string what = "the executor jobs of run '" + run_id + "'";
  auto s = impl_->db->prepare(
      "SELECT run_id, job_key, attempt_id, iteration, step, try_index, executor, state, reason, job_id, partition_name, "
      "node, queued_at, started_at, finished_at, seconds FROM executor_jobs WHERE run_id = ? ORDER BY id");
  if (!s) return read_error(*impl_, what, s.error());
  (*s)->bind(1, run_id);
  while ((*s)->step()) {
    const auto& st = **s;
    ExecutorJobRecord j;
    j.run_id = st.text(0);
    j.key = st.text(1);
    if (!st.is_null(2)) j.attempt_id = st.integer(2);
    if (!st.is_null(3)) j.iteration = static_cast<int>(st.integer(3));
    if (!st.is_null(4)) j.step = static_cast<int>(st.integer(4));
    j.try_index = static_cast<int>(st.integer(5));
    j.executor = st.text(6);
    j.state = st.text(7);
    j.reason = st.text(8);
    j.job_id = st.text(9);
    j.partition = st.text(10);
    j.node = st.text(11);
    j.queued_at = st.text(12);
    j.started_at = st.text(13);
    j.finished_at = st.text(14);
    j.seconds = st.real(15);
    out.push_back(std::move(j));
  }
  if (auto st = (*s)->status(); !st) return read_error(*impl_, what, st.error());
  return out;
}

// ---------------------------------------------------------------------------
// Kernels and totals

Result<std::string> RunStore::put_kernel(std::string_view source) {
  std::string sha = sha256_hex(source);
  auto s = impl_->db->prepare(
      "INSERT INTO kernels(sha256, bytes, source, created_at) VALUES(?,?,?,?) ON CONFLICT(sha256) DO NOTHING");
  if (!s) return s.error();
  if (auto r = (*s)->bind(1, sha).bind(2, static_cast<int64_t>(source.size())).bind(3, source).bind(4, utc_now()).run(); !r)
    return r.error();
  return sha;
}

Result<std::optional<std::string>> RunStore::kernel(const std::string& sha256) {
  const std::string what = "kernel " + sha256;
  auto s = impl_->db->prepare("SELECT source FROM kernels WHERE sha256 = ?");
  if (!s) return read_error(*impl_, what, s.error());
  (*s)->bind(1, sha256);
  if (!(*s)->step()) {
    if (auto st = (*s)->status(); !st) return read_error(*impl_, what, st.error());
    return std::optional<std::string>();
  }
  return std::optional<std::string>((*s)->text(0));
}

Result<RunTotals> RunStore::totals(const std::string& run_id) {
  RunTotals t;
  Database& d = *impl_->db;
  const std::string what = "the totals of run '" + run_id + "'";
  // Runs one aggregate query for `run_id`; `read` takes its single row.
  auto query = [&](const char* sql, auto read) -> Status {
    auto s = d.prepare(sql);
    if (!s) return s.error();
    (*s)->bind(1, run_id);
    if ((*s)->step()) read(**s);
    return (*s)->status();
  };
  Status st = query(
      "SELECT COALESCE(SUM(input_tokens),0), COALESCE(SUM(cached_input_tokens),0), "
      "COALESCE(SUM(cache_write_tokens),0), COALESCE(SUM(output_tokens),0), COALESCE(SUM(reasoning_tokens),0), "
      "COALESCE(SUM(cost_usd),0), COUNT(*), COALESCE(SUM(usage_source = 'estimated'),0), "
      "COALESCE(SUM(usage_source = 'missing'),0), COALESCE(SUM(usage_source = 'agent'),0) FROM llm_calls "
      "WHERE run_id = ? AND status IN ('done', 'failed')",
      [&](const Statement& row) {
        t.tokens.input = row.integer(0);
        t.tokens.cached_input = row.integer(1);
        t.tokens.cache_write = row.integer(2);
        t.tokens.output = row.integer(3);
        t.tokens.reasoning = row.integer(4);
        t.cost_usd = row.real(5);
        t.llm_calls = static_cast<int>(row.integer(6));
        t.estimated_usage_calls = static_cast<int>(row.integer(7));
        t.missing_usage_calls = static_cast<int>(row.integer(8));
        t.agent_usage_calls = static_cast<int>(row.integer(9));
      });
  if (!st) return read_error(*impl_, what, st.error());
  st = query("SELECT COUNT(*) FROM iterations WHERE run_id = ? AND status = 'done'",
             [&](const Statement& row) { t.iterations = static_cast<int>(row.integer(0)); });
  if (!st) return read_error(*impl_, what, st.error());
  st = query(
      "SELECT COUNT(*), COALESCE(SUM(status NOT IN ('pending','running')),0), COALESCE(SUM(correct),0) "
      "FROM attempts WHERE run_id = ?",
      [&](const Statement& row) {
        t.attempts = static_cast<int>(row.integer(0));
        t.finished_attempts = static_cast<int>(row.integer(1));
        t.solved_attempts = static_cast<int>(row.integer(2));
      });
  if (!st) return read_error(*impl_, what, st.error());
  st = query("SELECT COUNT(*) FROM evaluations WHERE run_id = ?",
             [&](const Statement& row) { t.evaluations = static_cast<int>(row.integer(0)); });
  if (!st) return read_error(*impl_, what, st.error());
  return t;
}

Error read_error(const RunStore::Impl& impl, const std::string& what, const Error& cause) {
  return make_error("store.read", "run store " + impl.file.string() + ": cannot read " + what + ": " + cause.message);
}

}  // namespace kgb::store
