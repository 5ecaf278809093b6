// Parser for Nsight Compute's CSV output (`ncu --csv`).
//
// Two table shapes exist. The default "details" page has one row per
// (kernel launch, metric):
//   "ID","Process ID","Process Name","Host Name","Kernel Name",...,
//   "Section Name","Metric Name","Metric Unit","Metric Value"
// (the columns between vary across ncu versions: "Kernel Time", "Context",
// "Stream", "Block Size", "Grid Size", "Device", "CC", ...). The "raw" page
// has one row per launch, one column per metric, and a second header row of
// units. Columns are found by name, so either shape and any column order work.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "kgb/profile.h"

namespace kgb::profile {
namespace {

constexpr std::string_view kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kStallSuffix = "_per_issue_active.ratio";

// One CSV record; fields may be quoted ("a ""b"", c").
std::vector<std::string> split_csv(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

// "1,234.5" (ncu groups digits in some versions) -> 1234.5; false for "n/a".
bool parse_number(std::string text, double& out) {
  text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); }),
             text.end());
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end && *end == '\0';
}

// Time units to microseconds; any other unit leaves the value as it is.
double to_microseconds(double value, const std::string& unit, bool& is_time) {
  is_time = true;
  if (unit == "nsecond" || unit == "ns") return value / 1e3;
  if (unit == "usecond" || unit == "us") return value;
  if (unit == "msecond" || unit == "ms") return value * 1e3;
  if (unit == "second" || unit == "s") return value * 1e6;
  is_time = false;
  return value;
}

int column(const std::vector<std::string>& header, std::string_view name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

void finish(KernelProfile& k) {
  auto get = [&](const char* name, double& target) {
    auto it = k.metrics.find(name);
    if (it != k.metrics.end()) target = it->second;
  };
  auto t = k.metrics.find("gpu__time_duration.sum");
  if (t != k.metrics.end()) {
    bool is_time = false;
    double us = to_microseconds(t->second, k.units["gpu__time_duration.sum"], is_time);
    // A unit-less duration is ncu's base unit, nanoseconds.
    k.duration_us = is_time ? us : t->second / 1e3;
  }
  get("dram__throughput.avg.pct_of_peak_sustained_elapsed", k.dram_throughput_pct);
  get("sm__throughput.avg.pct_of_peak_sustained_elapsed", k.sm_throughput_pct);
  get("sm__warps_active.avg.pct_of_peak_sustained_active", k.achieved_occupancy_pct);
  k.top_stalls.clear();
  for (const auto& [name, value] : k.metrics) {
    if (name.rfind(kStallPrefix, 0) != 0 || name.size() <= kStallPrefix.size() + kStallSuffix.size() ||
        name.compare(name.size() - kStallSuffix.size(), kStallSuffix.size(), kStallSuffix) != 0)
      continue;
    std::string reason = name.substr(kStallPrefix.size(), name.size() - kStallPrefix.size() - kStallSuffix.size());
    if (reason == "selected") continue;  // issuing, not stalled
    k.top_stalls.emplace_back(reason, value);
  }
  std::stable_sort(k.top_stalls.begin(), k.top_stalls.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (k.top_stalls.size() > 5) k.top_stalls.resize(5);
}

}  // namespace

const std::vector<std::string>& ncu_metrics() {
  static const std::vector<std::string> metrics{
      "gpu__time_duration.sum",
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      // Every stall reason the chip has (names differ a little across architectures).
      "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio",
  };
  return metrics;
}

Result<NcuReport> parse_ncu_csv(std::string_view text) {
  NcuReport report;
  std::vector<std::string> header;
  enum class Shape { None, Details, Raw } shape = Shape::None;
  std::vector<std::string> raw_units;
  std::map<int64_t, size_t> by_id;  // launch id -> index in report.kernels
  int c_id = -1, c_name = -1, c_block = -1, c_grid = -1, c_metric = -1, c_unit = -1, c_value = -1;

  auto kernel_for = [&](const std::vector<std::string>& row) -> KernelProfile* {
    double id_value = 0;
    if (c_id < 0 || c_id >= static_cast<int>(row.size()) || !parse_number(row[c_id], id_value)) return nullptr;
    const auto id = static_cast<int64_t>(id_value);
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      KernelProfile k;
      k.id = id;
      if (c_name >= 0 && c_name < static_cast<int>(row.size())) k.name = row[c_name];
      if (c_block >= 0 && c_block < static_cast<int>(row.size())) k.block = row[c_block];
      if (c_grid >= 0 && c_grid < static_cast<int>(row.size())) k.grid = row[c_grid];
      report.kernels.push_back(std::move(k));
      it = by_id.emplace(id, report.kernels.size() - 1).first;
    }
    return &report.kernels[it->second];
  };

  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '"') continue;  // ==PROF== lines, program output
    auto row = split_csv(line);
    if (!row.empty() && row[0] == "ID" && column(row, "Kernel Name") >= 0) {
      header = row;
      c_id = column(header, "ID");
      c_name = column(header, "Kernel Name");
      c_block = column(header, "Block Size");
      c_grid = column(header, "Grid Size");
      c_metric = column(header, "Metric Name");
      c_unit = column(header, "Metric Unit");
      c_value = column(header, "Metric Value");
      shape = c_metric >= 0 && c_value >= 0 ? Shape::Details : Shape::Raw;
      raw_units.clear();
      continue;
    }
    if (shape == Shape::None) continue;
    if (shape == Shape::Raw && raw_units.empty() && !row.empty() && row[0].empty()) {
      raw_units = row;  // the units row has no ID
      continue;
    }
    KernelProfile* k = kernel_for(row);
    if (!k) {
      report.warnings.push_back("unparsable ncu row: " + line.substr(0, 200));
      continue;
    }
    if (shape == Shape::Details) {
      if (c_metric >= static_cast<int>(row.size()) || c_value >= static_cast<int>(row.size())) continue;
      const std::string& name = row[c_metric];
      double value = 0;
      if (!parse_number(row[c_value], value)) {
        report.warnings.push_back("metric " + name + " of kernel " + std::to_string(k->id) + " has no value ('" + row[c_value] + "')");
        continue;
      }
      k->metrics[name] = value;
      if (c_unit >= 0 && c_unit < static_cast<int>(row.size())) k->units[name] = row[c_unit];
    } else {
      for (size_t i = 0; i < row.size() && i < header.size(); ++i) {
        const std::string& name = header[i];
        if (name.find("__") == std::string::npos) continue;  // metric names have a double underscore
        double value = 0;
        if (!parse_number(row[i], value)) continue;
        k->metrics[name] = value;
        if (i < raw_units.size()) k->units[name] = raw_units[i];
      }
    }
  }
  if (shape == Shape::None) return make_error("ncu.no-table", "no ncu CSV table in the output (was ncu run with --csv?)");
  for (auto& k : report.kernels) {
    finish(k);
    if (!k.metrics.count("gpu__time_duration.sum"))
      report.warnings.push_back("kernel " + std::to_string(k.id) + " (" + k.name + ") has no gpu__time_duration.sum");
  }
  return report;
}

}  // namespace kgb::profile
