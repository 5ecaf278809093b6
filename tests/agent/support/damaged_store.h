// Damaging a real run-store file the ways disks, people and other processes
// do: a dropped table, a table page overwritten with garbage, a file cut short,
// another connection holding the database locked.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace kgb::test {

// Folds the WAL into the main file so that page offsets are those of the file.
// Call with no other connection open.
void checkpoint_store(const std::filesystem::path& file);

// Runs `sql` on a connection of its own (foreign keys off, so tables can go).
void exec_on_store(const std::filesystem::path& file, const std::string& sql);

// Overwrites the root pages of `table` and of its indexes with a byte pattern
// that is no valid b-tree page. Returns the table's root page number.
int64_t corrupt_table_page(const std::filesystem::path& file, const std::string& table);

// Cuts the file (checkpointed first) to `pages` pages.
void truncate_store(const std::filesystem::path& file, int64_t pages);

// Holds an exclusive lock on the store (locking_mode EXCLUSIVE plus a write
// transaction) for as long as it lives: readers of the WAL get SQLITE_BUSY.
class StoreLock {
 public:
  explicit StoreLock(const std::filesystem::path& file);
  ~StoreLock();
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace kgb::test
