// Parsers of the OpenCL tools' output: the runner's profile file
// (enqueue_profile.h) and Oclgrind's reports.
#include <algorithm>
#include <cstdlib>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kgb/profile.h"
#include "text_util.h"

namespace kgb::profile {

OpenClProfile parse_opencl_profile(std::string_view text, int64_t from_job) {
  OpenClProfile out;
  std::map<std::string, size_t> index;  // kernel name -> position in out.kernels
  auto kernel = [&](const std::string& name) -> KernelProfile& {
    auto it = index.find(name);
    if (it == index.end()) {
      KernelProfile k;
      k.id = static_cast<int64_t>(out.kernels.size());
      k.name = name;
      k.launches = 0;
      out.kernels.push_back(std::move(k));
      it = index.emplace(name, out.kernels.size() - 1).first;
    }
    return out.kernels[it->second];
  };
  auto dims = [](const nlohmann::json& v) {
    std::vector<int64_t> d;
    if (v.is_array())
      for (const auto& x : v)
        if (x.is_number_integer()) d.push_back(x.get<int64_t>());
    return d;
  };
  auto shape = [](const std::vector<int64_t>& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
  };
  std::istringstream in{std::string(text)};
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty()) continue;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("kernel") || !j["kernel"].is_string()) {
      out.warnings.push_back("profile line " + std::to_string(number) + " is not a record");
      continue;
    }
    const std::string name = j["kernel"].get<std::string>();
    if (j.value("type", "") == "kernel") {
      KernelProfile& k = kernel(name);
      for (const char* key : {"private_mem_bytes", "local_mem_bytes", "max_work_group_size", "preferred_work_group_multiple", "args"})
        if (j.contains(key) && j[key].is_number()) k.attributes[key] = j[key].get<double>();
      k.build_log = j.value("build_log", "");
      continue;
    }
    if (j.value("type", "") != "enqueue" || j.value("job", int64_t{0}) < from_job) continue;
    Enqueue e;
    e.job = j.value("job", int64_t{0});
    e.kernel = name;
    e.global = dims(j.value("global", nlohmann::json()));
    e.local = dims(j.value("local", nlohmann::json()));
    e.queued = j.value("queued", uint64_t{0});
    e.submit = j.value("submit", uint64_t{0});
    e.start = j.value("start", uint64_t{0});
    e.end = j.value("end", uint64_t{0});
    KernelProfile& k = kernel(name);
    ++k.launches;
    k.duration_us += e.duration_us();
    if (k.grid.empty()) {
      k.grid = shape(e.global);
      k.block = e.local.empty() ? "(runtime's choice)" : shape(e.local);
    }
    out.enqueues.push_back(std::move(e));
  }
  double total = 0;
  for (const auto& k : out.kernels) total += k.duration_us;
  for (auto& k : out.kernels) k.share = total > 0 ? k.duration_us / total : 0;
  // Kernels only described (never enqueued in the profiled jobs) stay, with no time.
  return out;
}

SanitizerReport parse_oclgrind_output(std::string_view text) {
  // A report starts with an unindented line and goes on with tab-indented
  // details:
  //   Invalid read of size 4 at global memory address 0x1000000000fcc
  //   	Kernel: saxpy
  //   	Entity: Global(1009,0,0) Local(1,0,0) Group(1009,0,0)
  //   	  %5 = load float, float addrspace(1)* %arrayidx, align 4, !dbg !20
  //   	At line 5 (column 20) of input.cl:
  //   	  y[i] = a * x[i] + y[i];
  // API errors: "Oclgrind - OpenCL runtime error detected" with Function and Error lines.
  SanitizerReport report;
  static const std::regex at_line(R"(^At line (\d+)(?: \(column (\d+)\))? of (.*):$)");
  struct Block {
    std::string message, kernel, entity, function, error, excerpt;
    int line = 0, column = 0;
    bool want_excerpt = false;
  };
  std::vector<Block> blocks;
  std::istringstream in{std::string(text)};
  std::string raw;
  auto interesting = [](const std::string& m) {
    for (const char* key : {"Invalid ", "data race", "Uninitialized", "Uninitialised", "runtime error detected", "Work-group divergence",
                            "Unaligned", "barrier", "Invalid write", "Invalid read"})
      if (m.find(key) != std::string::npos) return true;
    return false;
  };
  while (std::getline(in, raw)) {
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const bool indented = !raw.empty() && (raw[0] == '\t' || raw[0] == ' ');
    const std::string t = trim(raw);
    if (!indented) {
      if (interesting(t)) {
        Block b;
        b.message = t;
        blocks.push_back(std::move(b));
      }
      else if (!blocks.empty() && !t.empty()) blocks.back().want_excerpt = false;
      continue;
    }
    if (blocks.empty()) continue;
    Block& b = blocks.back();
    std::smatch m;
    if (b.want_excerpt) {
      b.excerpt = t;
      b.want_excerpt = false;
    } else if (t.rfind("Kernel: ", 0) == 0) {
      b.kernel = t.substr(8);
    } else if (t.rfind("Entity: ", 0) == 0) {
      b.entity = t.substr(8);
    } else if (t.rfind("Function: ", 0) == 0) {
      b.function = t.substr(10);
    } else if (t.rfind("Error: ", 0) == 0) {
      b.error = t.substr(7);
    } else if (std::regex_match(t, m, at_line)) {
      b.line = std::atoi(m[1].str().c_str());
      b.column = m[2].matched ? std::atoi(m[2].str().c_str()) : 0;
      b.want_excerpt = true;
    }
  }
  std::map<std::string, size_t> seen;  // message|kernel|line -> finding index
  std::vector<int64_t> counts;
  for (const auto& b : blocks) {
    const std::string key = b.message.substr(0, b.message.find(" at ")) + "|" + b.kernel + "|" + std::to_string(b.line);
    if (auto it = seen.find(key); it != seen.end()) {
      ++counts[it->second];
      continue;
    }
    std::string message = b.message;
    if (!b.function.empty()) message += ": " + b.function + (b.error.empty() ? "" : " returned " + b.error);
    if (!b.kernel.empty()) message += " in kernel " + b.kernel;
    if (!b.entity.empty()) message += ", work-item " + b.entity;
    if (!b.excerpt.empty()) message += ": `" + b.excerpt + "`";
    std::string location;
    if (b.line > 0) location = "program line " + std::to_string(b.line);
    seen.emplace(key, report.findings.size());
    counts.push_back(1);
    report.findings.push_back(Finding{"sanitizer-oclgrind", "L2", "reject", message, location});
  }
  for (size_t i = 0; i < report.findings.size(); ++i)
    if (counts[i] > 1) report.findings[i].message += " (" + std::to_string(counts[i]) + " reports)";
  report.error_count = static_cast<int64_t>(blocks.size());
  report.summary_seen = true;  // Oclgrind prints nothing when it found nothing
  return report;
}

int find_program_line(std::string_view launcher_source, std::string_view excerpt) {
  const std::string want = trim(excerpt);
  if (want.empty()) return 0;
  std::istringstream in{std::string(launcher_source)};
  std::string line;
  int number = 0, found = 0, matches = 0;
  while (std::getline(in, line)) {
    ++number;
    if (trim(line) == want) {
      found = number;
      ++matches;
    }
  }
  return matches == 1 ? found : 0;
}

}  // namespace kgb::profile
