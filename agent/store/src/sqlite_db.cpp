#include "sqlite_db.h"

#include <sqlite3.h>

namespace kgb::store {

Statement::~Statement() {
  // Cached statements are reset, not finalised: the Database owns them.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Statement& Statement::bind(int index, std::string_view text) {
  if (sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8) != SQLITE_OK)
    error_ = sqlite3_errmsg(db_);
  return *this;
}

Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) error_ = sqlite3_errmsg(db_);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) error_ = sqlite3_errmsg(db_);
  return *this;
}

Statement& Statement::bind(int index, const std::optional<double>& value) {
  return value ? bind(index, *value) : bind_null(index);
}

Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) error_ = sqlite3_errmsg(db_);
  return *this;
}

bool Statement::step() {
  if (!error_.empty()) return false;
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) error_ = sqlite3_errmsg(db_);
  return false;
}

Status Statement::run() {
  while (step()) {
  }
  return status();
}

int Statement::columns() const { return sqlite3_column_count(stmt_); }
std::string Statement::column_name(int index) const { return sqlite3_column_name(stmt_, index); }
bool Statement::is_null(int index) const { return sqlite3_column_type(stmt_, index) == SQLITE_NULL; }
int Statement::column_type(int index) const { return sqlite3_column_type(stmt_, index); }

std::string Statement::text(int index) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  if (!p) return {};
  return std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

int64_t Statement::integer(int index) const { return sqlite3_column_int64(stmt_, index); }
double Statement::real(int index) const { return sqlite3_column_double(stmt_, index); }

Result<std::unique_ptr<Database>> Database::open(const std::filesystem::path& file) {
  std::unique_ptr<Database> db(new Database());
  const int rc = sqlite3_open_v2(file.c_str(), &db->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db->db_ ? sqlite3_errmsg(db->db_) : "out of memory";
    return make_error("store.open", "cannot open the run store " + file.string() + ": " + message);
  }
  sqlite3_busy_timeout(db->db_, 10000);
  sqlite3_extended_result_codes(db->db_, 1);
  return db;
}

Database::~Database() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  if (db_) sqlite3_close_v2(db_);
}

Status Database::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    return make_error("store.sqlite", text);
  }
  return Ok{};
}

Result<std::shared_ptr<Statement>> Database::prepare(const std::string& sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) !=
        SQLITE_OK)
      return make_error("store.sqlite", std::string(sqlite3_errmsg(db_)) + " in: " + sql);
    it = cache_.emplace(sql, stmt).first;
  }
  return std::make_shared<Statement>(db_, it->second);
}

int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int Database::changes() const { return sqlite3_changes(db_); }
std::string Database::last_error() const { return sqlite3_errmsg(db_); }

Database::Transaction::Transaction(Database& db) : db_(db) {
  auto s = db_.exec("BEGIN IMMEDIATE");
  began_ = s.ok();
  if (!began_) error_ = s.error().message;
}

Database::Transaction::~Transaction() {
  if (began_ && !done_) (void)db_.exec("ROLLBACK");
}

Status Database::Transaction::commit() {
  if (!began_) return make_error("store.sqlite", error_);
  done_ = true;
  return db_.exec("COMMIT");
}

}  // namespace kgb::store
