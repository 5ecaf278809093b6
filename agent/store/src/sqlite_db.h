// A thin RAII layer over the SQLite C API: one connection, cached prepared
// statements, typed binds and columns, and transactions that roll back unless
// committed. Failures are values (kgb::Error with code "store.sqlite").
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "kgb/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace kgb::store {

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  // Binds are 1-based, like SQLite's.
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, bool value) { return bind(index, static_cast<int64_t>(value ? 1 : 0)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::optional<double>& value);
  Statement& bind_null(int index);

  // True while a row is available; errors are kept and reported by status().
  bool step();
  // Runs to completion (for writes).
  Status run();
  Status status() const { return error_.empty() ? Status(Ok{}) : Status(make_error("store.sqlite", error_)); }

  int columns() const;
  std::string column_name(int index) const;
  bool is_null(int index) const;
  int column_type(int index) const;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL
  std::string text(int index) const;
  int64_t integer(int index) const;
  double real(int index) const;

  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string error_;
};

class Database {
 public:
  static Result<std::unique_ptr<Database>> open(const std::filesystem::path& file);
  ~Database();

  Status exec(const std::string& sql);
  // A fresh statement (reset and bound by the caller). Cached per SQL text.
  Result<std::shared_ptr<Statement>> prepare(const std::string& sql);
  int64_t last_insert_id() const;
  int changes() const;
  std::string last_error() const;

  // BEGIN IMMEDIATE ... COMMIT; rolls back on destruction unless committed.
  class Transaction {
   public:
    explicit Transaction(Database& db);
    ~Transaction();
    Status commit();
    bool ok() const { return began_; }
    const std::string& error() const { return error_; }

   private:
    Database& db_;
    bool began_ = false, done_ = false;
    std::string error_;
  };

 private:
  Database() = default;
  sqlite3* db_ = nullptr;
  std::map<std::string, sqlite3_stmt*, std::less<>> cache_;
};

}  // namespace kgb::store
