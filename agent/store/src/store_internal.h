// Shared between the store's source files.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "kgb/store/run_store.h"
#include "sqlite_db.h"

namespace kgb::store {

struct RunStore::Impl {
  std::filesystem::path file;
  std::unique_ptr<Database> db;
};

// A *_json column back to JSON (text that does not parse comes back as a string).
nlohmann::json parse_json_column(const std::string& text);
// JSON to column text, replacing invalid UTF-8 rather than throwing.
std::string dump_json_column(const nlohmann::json& j);
// A failed read as an error naming the store file and what was being read.
Error read_error(const RunStore::Impl& impl, const std::string& what, const Error& cause);

}  // namespace kgb::store
