// Export of one table of a run as JSON lines or CSV: plain data for pandas,
// jq or a spreadsheet. Columns named *_json are embedded as JSON values in
// JSONL (the suffix dropped) and kept as JSON text in CSV.
#include <sqlite3.h>

#include "store_internal.h"

namespace kgb::store {

const std::vector<std::string>& export_tables() {
  static const std::vector<std::string> tables = {"runs",        "attempts",      "iterations", "llm_calls", "tool_calls",
                                                  "evaluations", "executor_jobs", "kernels"};
  return tables;
}

namespace {

std::string select_for(const std::string& table) {
  if (table == "runs") return "SELECT * FROM runs WHERE id = ?1";
  if (table == "kernels")
    return "SELECT k.* FROM kernels k WHERE k.sha256 IN ("
           "SELECT kernel FROM iterations WHERE run_id = ?1 UNION SELECT kernel FROM evaluations WHERE run_id = ?1 "
           "UNION SELECT kernel FROM tool_calls WHERE run_id = ?1) ORDER BY k.created_at, k.sha256";
  if (table == "attempts") return "SELECT * FROM attempts WHERE run_id = ?1 ORDER BY task, sample";
  if (table == "iterations") return "SELECT * FROM iterations WHERE run_id = ?1 ORDER BY attempt_id, idx";
  return "SELECT * FROM " + table + " WHERE run_id = ?1 ORDER BY attempt_id, iteration, step, id";
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string format_real(double v) {
  nlohmann::json j = v;
  return j.dump();
}

}  // namespace

Status RunStore::export_table(const std::string& run_id, const std::string& table, ExportFormat format,
                              std::ostream& out) {
  const auto& known = export_tables();
  if (std::find(known.begin(), known.end(), table) == known.end()) {
    std::string list;
    for (const auto& t : known) list += (list.empty() ? "" : ", ") + t;
    return make_error("store.export", "unknown table '" + table + "' (one of " + list + ")");
  }
  if (auto run = load_run(run_id); !run) return run.error();
  auto s = impl_->db->prepare(select_for(table));
  if (!s) return s.error();
  Statement& st = **s;
  st.bind(1, run_id);
  bool header_done = false;
  while (st.step()) {
    const int n = st.columns();
    if (format == ExportFormat::Csv) {
      if (!header_done) {
        for (int i = 0; i < n; ++i) out << (i ? "," : "") << csv_field(st.column_name(i));
        out << "\n";
        header_done = true;
      }
      for (int i = 0; i < n; ++i) {
        out << (i ? "," : "");
        switch (st.column_type(i)) {
          case SQLITE_NULL: break;
          case SQLITE_INTEGER: out << st.integer(i); break;
          case SQLITE_FLOAT: out << format_real(st.real(i)); break;
          default: out << csv_field(st.text(i));
        }
      }
      out << "\n";
    } else {
      nlohmann::ordered_json row;
      for (int i = 0; i < n; ++i) {
        std::string name = st.column_name(i);
        switch (st.column_type(i)) {
          case SQLITE_NULL: row[name] = nullptr; break;
          case SQLITE_INTEGER: row[name] = st.integer(i); break;
          case SQLITE_FLOAT: row[name] = st.real(i); break;
          default:
            if (ends_with(name, "_json")) {
              auto parsed = nlohmann::ordered_json::parse(st.text(i), nullptr, false);
              row[name.substr(0, name.size() - 5)] = parsed.is_discarded() ? nlohmann::ordered_json(st.text(i)) : parsed;
            } else {
              row[name] = st.text(i);
            }
        }
      }
      out << row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
  }
  if (!st.status()) return st.status().error();
  if (!out) return make_error("store.export", "cannot write the export");
  return Ok{};
}

}  // namespace kgb::store
