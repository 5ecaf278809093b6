// Parsers of the CPU tools' output: AddressSanitizer / UBSan reports, `perf
// stat -x,` and cachegrind output files.
#include <algorithm>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "kgb/profile.h"
#include "text_util.h"

namespace kgb::profile {

int64_t LineCost::misses() const {
  int64_t total = 0;
  for (const char* e : {"D1mr", "D1mw", "DLmr", "DLmw"}) {
    auto it = events.find(e);
    if (it != events.end()) total += it->second;
  }
  return total;
}

namespace {

struct Frame {
  std::string function;
  std::string file;  // base name
  int line = 0, column = 0;
};

// "    #0 0x55e8f10a4294 in kgb_blas_saxpy /tmp/kgb-profile-x/candidate.cpp:12:20"
bool parse_frame(const std::string& line, Frame& f) {
  static const std::regex frame(R"(^\s*#\d+\s+0x[0-9a-fA-F]+\s+in\s+(.*?)\s+(\S+?):(\d+)(?::(\d+))?\s*$)");
  std::smatch m;
  if (!std::regex_match(line, m, frame)) return false;
  f.function = m[1];
  f.file = base_name(m[2].str());
  f.line = std::atoi(m[3].str().c_str());
  f.column = m[4].matched ? std::atoi(m[4].str().c_str()) : 0;
  return true;
}

std::string location_of(const Frame& f) {
  std::string loc = f.file + ":" + std::to_string(f.line);
  if (f.column > 0) loc += ":" + std::to_string(f.column);
  return loc;
}

}  // namespace

SanitizerReport parse_asan_output(std::string_view text, std::string_view candidate_file) {
  SanitizerReport report;
  static const std::regex asan_error(R"(ERROR: AddressSanitizer: ([\w-]+)(?: on (?:unknown )?address (0x[0-9a-fA-F]+))?)");
  static const std::regex access(R"(^(READ|WRITE) of size (\d+))");
  static const std::regex region(R"(is located (\d+) bytes (to the right|to the left|inside) of (\d+)-byte region)");
  static const std::regex ubsan(R"(^(.*?):(\d+):(\d+): runtime error: (.*)$)");
  std::istringstream in{std::string(text)};
  std::string line;
  // The ASan report being read: its kind, access, frames of the first stack.
  bool in_asan = false, first_stack_done = false;
  std::string kind, access_text, region_text;
  std::vector<Frame> frames;
  auto finish_asan = [&] {
    if (!in_asan) return;
    in_asan = false;
    const Frame* where = nullptr;
    for (const auto& f : frames)
      if (f.file == candidate_file) {
        where = &f;
        break;
      }
    if (!where)
      for (const auto& f : frames)
        if (f.line > 0 && f.file != "??") {
          where = &f;
          break;
        }
    std::string message = kind;
    // The sanitizer runner poisons the padding behind each tensor's storage
    // (cpu_device.cpp): a hit there is an access past the tensor's end.
    if (kind == "use-after-poison") message += " (past the end of a tensor: the runner poisons the padding behind its storage)";
    if (!access_text.empty()) message += ": " + access_text;
    if (where && !where->function.empty()) message += " in " + where->function;
    if (!region_text.empty()) message += " (" + region_text + ")";
    report.findings.push_back(Finding{"sanitizer-asan", "L2", "reject", message, where ? location_of(*where) : ""});
    report.summary_seen = true;
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_search(line, m, asan_error)) {
      finish_asan();
      in_asan = true;
      first_stack_done = false;
      kind = m[1];
      access_text.clear();
      region_text.clear();
      frames.clear();
      continue;
    }
    if (in_asan) {
      if (std::regex_search(line, m, access)) {
        access_text = m[1].str() + " of " + m[2].str() + " bytes";
        continue;
      }
      Frame f;
      if (!first_stack_done && parse_frame(line, f)) {
        frames.push_back(f);
        continue;
      }
      if (!frames.empty() && trim(line).empty()) first_stack_done = true;
      if (std::regex_search(line, m, region)) {
        const std::string side = m[2] == "to the right" ? "after" : m[2] == "to the left" ? "before" : "inside";
        region_text = m[1].str() + " bytes " + side + " a " + m[3].str() + "-byte allocation";
        if (side != "inside") region_text += " (a tensor's storage or the runner's)";
        continue;
      }
      if (line.rfind("SUMMARY: AddressSanitizer", 0) == 0) finish_asan();
      continue;
    }
    if (std::regex_match(line, m, ubsan)) {
      Frame f;
      f.file = base_name(m[1].str());
      f.line = std::atoi(m[2].str().c_str());
      f.column = std::atoi(m[3].str().c_str());
      report.findings.push_back(Finding{"sanitizer-ubsan", "L2", "reject", "undefined behaviour: " + m[4].str(), location_of(f)});
      report.summary_seen = true;
    }
  }
  finish_asan();
  report.error_count = static_cast<int64_t>(report.findings.size());
  return report;
}

PerfStat parse_perf_stat(std::string_view text) {
  // CSV: value,unit,event,run-time,percentage[,metric,metric-unit]
  PerfStat out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ',')) f.push_back(field);
    if (f.size() < 3 || f[2].empty()) continue;
    const std::string& value = f[0];
    std::string event = f[2];
    if (auto colon = event.find(":u"); colon != std::string::npos && colon + 2 == event.size()) event.resize(colon);
    if (value.find("not supported") != std::string::npos || value.find("not counted") != std::string::npos) {
      out.unsupported.push_back(event);
      continue;
    }
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str()) out.counts[event] = v;
  }
  return out;
}

Result<CachegrindReport> parse_cachegrind(std::string_view text, std::string_view file) {
  CachegrindReport r;
  std::istringstream in{std::string(text)};
  std::string line;
  bool in_candidate = false;
  std::map<int, LineCost> by_line;
  while (std::getline(in, line)) {
    if (line.rfind("desc: ", 0) == 0) {
      // "desc: D1 cache:         32768 B, 64 B, 8-way associative"
      const std::string rest = line.substr(6);
      const auto colon = rest.find(" cache:");
      if (colon != std::string::npos) r.caches[rest.substr(0, colon)] = trim(rest.substr(colon + 7));
    } else if (line.rfind("events:", 0) == 0) {
      std::istringstream names(line.substr(7));
      std::string n;
      while (names >> n) r.events.push_back(n);
    } else if (line.rfind("fl=", 0) == 0 || line.rfind("fi=", 0) == 0 || line.rfind("fe=", 0) == 0) {
      in_candidate = base_name(line.substr(3)) == file;
    } else if (line.rfind("fn=", 0) == 0) {
      continue;
    } else if (line.rfind("summary:", 0) == 0) {
      std::istringstream values(line.substr(8));
      int64_t v = 0;
      for (size_t i = 0; i < r.events.size() && values >> v; ++i) r.program_totals[r.events[i]] = v;
    } else if (in_candidate && !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      std::istringstream values(line);
      int number = 0;
      values >> number;
      LineCost& cost = by_line[number];
      cost.file = std::string(file);
      cost.line = number;
      int64_t v = 0;
      for (size_t i = 0; i < r.events.size() && values >> v; ++i) {
        cost.events[r.events[i]] += v;
        r.totals[r.events[i]] += v;
      }
    }
  }
  if (r.events.empty()) return make_error("cachegrind.output", "no 'events:' line: not a cachegrind output file");
  for (auto& [number, cost] : by_line) r.lines.push_back(std::move(cost));
  std::stable_sort(r.lines.begin(), r.lines.end(), [](const LineCost& a, const LineCost& b) {
    if (a.misses() != b.misses()) return a.misses() > b.misses();
    auto ir = [](const LineCost& c) {
      auto it = c.events.find("Ir");
      return it == c.events.end() ? int64_t{0} : it->second;
    };
    return ir(a) > ir(b);
  });
  return r;
}

}  // namespace kgb::profile
