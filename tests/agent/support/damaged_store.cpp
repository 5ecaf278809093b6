#include "damaged_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace kgb::test {

namespace {

sqlite3* open_raw(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + file.string() + ": " + message);
  }
  return db;
}

void exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw std::runtime_error(sql + ": " + text);
  }
}

int64_t single_integer(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) throw std::runtime_error(sqlite3_errmsg(db));
  int64_t value = -1;
  if (sqlite3_step(s) == SQLITE_ROW) value = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  if (value < 0) throw std::runtime_error("no value for: " + sql);
  return value;
}

}  // namespace

void checkpoint_store(const std::filesystem::path& file) {
  sqlite3* db = open_raw(file);
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite3_close(db);
}

void exec_on_store(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = open_raw(file);
  try {
    exec(db, "PRAGMA foreign_keys = OFF");
    exec(db, sql);
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  sqlite3_close(db);
}

int64_t corrupt_table_page(const std::filesystem::path& file, const std::string& table) {
  sqlite3* db = open_raw(file);
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  const int64_t page_size = single_integer(db, "PRAGMA page_size");
  const int64_t root = single_integer(db, "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = '" + table + "'");
  // The table's indexes too: a query an index covers never reads the table.
  std::vector<int64_t> pages = {root};
  sqlite3_stmt* s = nullptr;
  const std::string sql = "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = '" + table + "' AND rootpage > 0";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK)
    while (sqlite3_step(s) == SQLITE_ROW) pages.push_back(sqlite3_column_int64(s, 0));
  sqlite3_finalize(s);
  sqlite3_close(db);
  // 0x0d would be a leaf page; 0xA5 is no page type at all.
  const std::vector<char> garbage(static_cast<size_t>(page_size), static_cast<char>(0xA5));
  const int fd = ::open(file.c_str(), O_WRONLY);
  if (fd < 0) throw std::runtime_error("cannot write " + file.string());
  for (const int64_t page : pages)
    if (::pwrite(fd, garbage.data(), garbage.size(), static_cast<off_t>((page - 1) * page_size)) != static_cast<ssize_t>(page_size)) {
      ::close(fd);
      throw std::runtime_error("cannot overwrite page " + std::to_string(page) + " of " + file.string());
    }
  ::close(fd);
  return root;
}

void truncate_store(const std::filesystem::path& file, int64_t pages) {
  sqlite3* db = open_raw(file);
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  const int64_t page_size = single_integer(db, "PRAGMA page_size");
  sqlite3_close(db);
  std::filesystem::resize_file(file, static_cast<uintmax_t>(pages * page_size));
}

StoreLock::StoreLock(const std::filesystem::path& file) : db_(open_raw(file)) {
  exec(db_, "PRAGMA locking_mode = EXCLUSIVE");
  exec(db_, "BEGIN EXCLUSIVE");
  exec(db_, "UPDATE runs SET updated_at = updated_at");
}

StoreLock::~StoreLock() {
  (void)sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db_);
}

}  // namespace kgb::test
