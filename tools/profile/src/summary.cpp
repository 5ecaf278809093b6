// The model-oriented summary of a profile (two or three lines with numbers:
// where the kernel sits on the roofline, what the platform's tools say limits
// it, what the sanitizer found) and the JSON form of the whole result.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "kgb/profile.h"
#include "text_util.h"

namespace kgb::profile {
namespace {

using nlohmann::json;

std::string num(double v, int digits = 3) {
  char buf[64];
  if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  else std::snprintf(buf, sizeof buf, "%.*g", std::max(digits, static_cast<int>(std::log10(std::max(std::fabs(v), 1.0))) + 1), v);
  return buf;
}

std::string pct(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, fraction < 0.1 ? "%.1f%%" : "%.0f%%", 100 * fraction);
  return buf;
}

double counter(const ProfileResult& r, const std::string& key) {
  auto it = r.counters.find(key);
  return it == r.counters.end() ? -1 : it->second;
}

std::string roofline_line(const ProfileResult& r) {
  // The slowest case relative to its baseline speaks for the kernel.
  const RooflineEntry* e = nullptr;
  for (const auto& x : r.roofline)
    if (!e || (x.speedup > 0 && (e->speedup <= 0 || x.speedup < e->speedup))) e = &x;
  if (!e || e->median_us <= 0) return {};
  std::string line = e->case_name + "/" + e->dtype + ": " + num(e->median_us) + " us";
  if (e->baseline_us > 0) line += " (baseline " + num(e->baseline_us) + " us, " + num(e->speedup) + "x)";
  if (e->achieved_gbs > 0 || e->achieved_gflops > 0) {
    line += "; " + num(e->achieved_gbs) + " GB/s = " + pct(e->bandwidth_fraction) + " of peak bandwidth, " + num(e->achieved_gflops) +
            " GFLOP/s = " + pct(e->compute_fraction) + " of peak compute";
    const double closest = std::max(e->bandwidth_fraction, e->compute_fraction);
    if (closest >= 0.6) line += ": " + e->bound + "-bound, close to the ceiling";
    else if (closest >= 0.2) line += ": nearer the " + e->bound + " ceiling";
    else line += ": far below both ceilings (latency, parallelism or overhead limit it)";
  }
  return line + ".";
}

std::string cachegrind_line(const ProfileResult& r) {
  if (std::find(r.tools.begin(), r.tools.end(), "cachegrind") == r.tools.end()) return {};
  const double d1 = counter(r, "cachegrind.d1_miss_rate"), ll = counter(r, "cachegrind.ll_miss_rate");
  std::string line = "Cache simulation" + (r.reduced_case.empty() ? "" : " (" + r.reduced_case + ")") + ": ";
  if (d1 < 0) return line + "no data access in the candidate's lines.";
  const double misses = counter(r, "cachegrind.D1mr") + counter(r, "cachegrind.D1mw") + counter(r, "cachegrind.DLmr") +
                        counter(r, "cachegrind.DLmw");
  line += "L1 data misses on " + pct(d1) + " of " + num(counter(r, "cachegrind.Dr") + counter(r, "cachegrind.Dw")) +
          " data accesses, last-level misses on " + pct(ll);
  if (!r.hot_lines.empty() && misses > 0) {
    const LineCost& top = r.hot_lines.front();
    line += "; " + top.file + ":" + std::to_string(top.line) + " has " + pct(static_cast<double>(top.misses()) / misses) + " of the misses";
    if (!top.excerpt.empty()) line += " (`" + top.excerpt.substr(0, 80) + "`)";
  }
  if (d1 > 0.2) line += " - access memory in order (contiguous, vectorised) to use whole cache lines";
  return line + ".";
}

std::string perf_line(const ProfileResult& r) {
  if (std::find(r.tools.begin(), r.tools.end(), "perf stat") == r.tools.end()) return {};
  std::string line = "Counters per call:";
  if (double v = counter(r, "perf.instructions_per_call"); v >= 0) line += " " + num(v) + " instructions";
  if (double v = counter(r, "perf.ipc"); v >= 0) line += ", IPC " + num(v, 2);
  if (double v = counter(r, "perf.l1d_miss_rate"); v >= 0) line += ", L1d load misses " + pct(v);
  if (double v = counter(r, "perf.llc_miss_rate"); v >= 0) line += ", LLC load misses " + pct(v);
  if (double v = counter(r, "perf.branch_miss_rate"); v >= 0) line += ", branch misses " + pct(v);
  return line + ".";
}

std::string kernels_line(const ProfileResult& r) {
  if (r.kernels.empty()) return {};
  std::vector<const KernelProfile*> order;
  for (const auto& k : r.kernels) order.push_back(&k);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->duration_us > b->duration_us; });
  std::string line;
  if (r.backend == "hip") {
    for (size_t i = 0; i < order.size() && i < 3; ++i) {
      const auto& a = order[i]->attributes;
      auto at = [&](const char* key) { return a.count(key) ? num(a.at(key)) : std::string("?"); };
      line += (i ? "; " : "Compiler resource usage: ") + order[i]->name + ": " + at("vgpr") + " VGPRs, " + at("sgpr") + " SGPRs, " +
              at("scratch_bytes") + " B scratch per lane, " + at("lds_bytes") + " B LDS, occupancy " + at("occupancy_waves") +
              " waves/SIMD";
    }
    return line + ".";
  }
  if (r.backend == "cuda") {
    const KernelProfile& k = *order.front();
    line = std::to_string(r.kernels.size()) + " launch(es), " + num(r.total_duration_us) + " us; " + k.name.substr(0, 60) + ": " +
           num(k.duration_us) + " us, DRAM " + num(k.dram_throughput_pct, 2) + "% of peak, SM " + num(k.sm_throughput_pct, 2) +
           "%, occupancy " + num(k.achieved_occupancy_pct, 2) + "%";
    if (!k.top_stalls.empty()) line += ", top stall " + k.top_stalls.front().first + " (" + num(k.top_stalls.front().second, 2) + ")";
    return line + ".";
  }
  // OpenCL: the split between kernels per call, and what the attributes say.
  line = std::to_string(r.kernels.size()) + " kernel(s) per call, device time " + num(r.total_duration_us) + " us:";
  for (size_t i = 0; i < order.size() && i < 4; ++i) {
    const KernelProfile& k = *order[i];
    line += std::string(i ? "," : "") + " " + k.name + " " + pct(k.share) + " (" + num(k.duration_us) + " us, " +
            std::to_string(k.launches) + "x, global " + k.grid + ", local " + k.block + ")";
  }
  const double span = counter(r, "opencl.span_us_per_call"), busy = counter(r, "opencl.device_busy_us_per_call");
  if (span > 0 && busy >= 0 && busy < span) line += "; idle " + pct(1 - busy / span) + " of the call's device span";
  for (const auto& k : r.kernels) {
    auto a = k.attributes;
    if (a.count("private_mem_bytes") && a["private_mem_bytes"] > 1024)
      line += "; " + k.name + " uses " + num(a["private_mem_bytes"]) + " B of private memory per work-item";
  }
  return line + ".";
}

std::string sanitizer_line(const ProfileResult& r) {
  if (r.sanitizer.empty()) return {};
  if (r.findings.empty()) return "Sanitizer (" + r.sanitizer + "): no error on the correctness cases.";
  const Finding& f = r.findings.front();
  std::string line = "Sanitizer (" + r.sanitizer + "): " + std::to_string(std::max<int64_t>(r.sanitizer_errors, 1)) + " error(s); first: " +
                     f.message + (f.location.empty() ? "" : " at " + f.location);
  return line + ".";
}

}  // namespace

std::vector<std::string> summarize(const ProfileResult& r) {
  std::vector<std::string> lines;
  if (!r.compiled && !r.error.empty()) return {"No profile: " + r.error + "."};
  for (const auto& line : {roofline_line(r), perf_line(r), cachegrind_line(r), kernels_line(r), sanitizer_line(r)})
    if (!line.empty()) lines.push_back(line);
  if (lines.empty()) {
    if (!r.error.empty()) lines.push_back("No profile: " + r.error + ".");
    else if (!r.notes.empty()) lines.push_back("No profile on " + r.platform + ": " + r.notes.front() + ".");
  }
  return lines;
}

void attach_timings(ProfileResult& r, const Verdict& v) {
  r.roofline.clear();
  for (const auto& t : v.timings) {
    RooflineEntry e;
    e.case_name = t.name;
    e.dtype = t.dtype;
    e.median_us = t.candidate.median_us;
    e.baseline_us = t.baseline ? t.baseline->median_us : 0;
    e.speedup = t.speedup;
    e.achieved_gflops = t.achieved_gflops;
    e.achieved_gbs = t.achieved_gbs;
    e.compute_fraction = t.compute_fraction;
    e.bandwidth_fraction = t.bandwidth_fraction;
    e.bound = t.bound;
    r.roofline.push_back(e);
  }
  r.summary = summarize(r);
}

void to_json(json& j, const KernelProfile& k) {
  json stalls = json::array();
  for (const auto& [reason, value] : k.top_stalls) stalls.push_back({{"reason", reason}, {"warps_per_issue", value}});
  j = json{{"id", k.id},
           {"name", k.name},
           {"grid", k.grid},
           {"block", k.block},
           {"launches", k.launches},
           {"duration_us", k.duration_us},
           {"share", k.share},
           {"dram_throughput_pct", k.dram_throughput_pct},
           {"sm_throughput_pct", k.sm_throughput_pct},
           {"achieved_occupancy_pct", k.achieved_occupancy_pct},
           {"top_stalls", stalls},
           {"metrics", k.metrics},
           {"attributes", k.attributes}};
  if (!k.build_log.empty()) j["build_log"] = k.build_log;
}

void to_json(json& j, const ProfileResult& r) {
  json enqueues = json::array();
  for (const auto& e : r.enqueues)
    enqueues.push_back({{"job", e.job}, {"kernel", e.kernel}, {"global", e.global}, {"local", e.local}, {"queued_ns", e.queued},
                        {"submit_ns", e.submit}, {"start_ns", e.start}, {"end_ns", e.end}, {"duration_us", e.duration_us()}});
  json lines = json::array();
  for (const auto& l : r.hot_lines)
    lines.push_back({{"file", l.file}, {"line", l.line}, {"excerpt", l.excerpt}, {"events", l.events}, {"misses", l.misses()}});
  json roofline = json::array();
  for (const auto& e : r.roofline)
    roofline.push_back({{"case", e.case_name}, {"dtype", e.dtype}, {"median_us", e.median_us}, {"baseline_us", e.baseline_us},
                        {"speedup", e.speedup}, {"achieved_gflops", e.achieved_gflops}, {"achieved_gbs", e.achieved_gbs},
                        {"compute_fraction", e.compute_fraction}, {"bandwidth_fraction", e.bandwidth_fraction}, {"bound", e.bound}});
  j = json{{"task", r.task},
           {"platform", r.platform},
           {"backend", r.backend},
           {"profiled_case", r.profiled_case},
           {"reduced_case", r.reduced_case},
           {"compiled", r.compiled},
           {"diagnostics", r.diagnostics},
           {"tools", r.tools},
           {"notes", r.notes},
           {"summary", r.summary},
           {"kernels", r.kernels},
           {"total_duration_us", r.total_duration_us},
           {"enqueues", enqueues},
           {"counters", r.counters},
           {"hot_lines", lines},
           {"roofline", roofline},
           {"sanitizer", r.sanitizer},
           {"findings", r.findings},
           {"sanitizer_errors", r.sanitizer_errors},
           {"sanitizer_case", r.sanitizer_case},
           {"warnings", r.warnings},
           {"error", r.error},
           {"ok", r.ok()}};
  json logs = json::object();
  for (const auto& [tool, text] : r.logs) logs[tool] = cap(text, 8 * 1024);
  j["logs"] = logs;
}

}  // namespace kgb::profile
