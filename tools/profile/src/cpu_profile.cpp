// CPU platforms: perf stat (hardware counters inside the timed calls only),
// cachegrind on a reduced case with per-line attribution in the candidate's
// file, and the AddressSanitizer + UBSan build on the correctness cases (under
// the platform's emulator prefix on the qemu platforms).
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "kgb/evaluator.h"
#include "kgb/paths.h"
#include "kgb/wire.h"
#include "profiler_internal.h"
#include "text_util.h"

namespace kgb::profile {
namespace {

struct CacheLevel {
  int64_t size = 0, ways = 0, line = 0;
  std::string cachegrind_spec() const { return std::to_string(size) + "," + std::to_string(ways) + "," + std::to_string(line); }
};

int64_t sysfs_number(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text)) return 0;
  int64_t v = std::strtoll(text.c_str(), nullptr, 10);
  if (text.find('K') != std::string::npos) v <<= 10;
  if (text.find('M') != std::string::npos) v <<= 20;
  return v;
}

// This host's caches from sysfs: the level-1 data and instruction caches and
// the last level. Cachegrind's own detection reads CPUID, which virtual
// machines often fill with nonsense (a 256 MiB direct-mapped LL was seen);
// cachegrind also wants a power-of-two number of sets, so sizes are rounded
// down to one.
struct HostCaches {
  CacheLevel i1, d1, ll;
};

HostCaches host_caches() {
  HostCaches c;
  int best_level = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream type_in(dir + "type");
    std::string type;
    if (!(type_in >> type)) continue;
    CacheLevel level{sysfs_number(dir + "size"), sysfs_number(dir + "ways_of_associativity"), sysfs_number(dir + "coherency_line_size")};
    if (level.size <= 0 || level.ways <= 0 || level.line <= 0) continue;
    int64_t sets = level.size / (level.ways * level.line);
    int64_t pow2 = 1;
    while (pow2 * 2 <= sets) pow2 *= 2;
    level.size = pow2 * level.ways * level.line;
    const int lvl = static_cast<int>(sysfs_number(dir + "level"));
    if (lvl == 1 && type == "Data") c.d1 = level;
    if (lvl == 1 && type == "Instruction") c.i1 = level;
    if (lvl > best_level && type != "Instruction") {
      best_level = lvl;
      c.ll = level;
    }
  }
  return c;
}

// The evaluator's flush: twice the last-level cache, at least 8 MiB.
int64_t flush_bytes() {
  const int64_t ll = host_caches().ll.size;
  return std::clamp<int64_t>(2 * ll, 8 << 20, 512 << 20);
}

std::vector<std::string> source_lines(const std::string& source) {
  std::vector<std::string> lines;
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

// perf stat with the counters enabled only inside the runner's timed calls
// (CpuDevice::timed_call switches them through perf's control FIFO).
void run_perf(Workspace& ws, const std::filesystem::path& exe) {
  ProfileResult& r = ws.result;
  const std::string perf = find_program(ws.options.perf_program);
  if (perf.empty()) {
    r.notes.push_back("perf: '" + ws.options.perf_program + "' not found on PATH (Debian: linux-perf)");
    return;
  }
  const auto folder = exe.parent_path();
  const auto env = tool_environment(ws.platform, folder);
  std::vector<std::string> events = ws.options.perf_events;
  if (events.empty()) {
    // Whether the kernel gives this process hardware counters.
    ToolRun probe = run_tool({perf, "stat", "-x,", "-e", "instructions", "--", "true"}, env, ws.platform, folder, ws.options);
    PerfStat p = parse_perf_stat(probe.err);
    if (!probe.spawn_error.empty() || !p.counts.count("instructions")) {
      r.notes.push_back("perf: no hardware counters here (`perf stat -e instructions true`: " +
                        (p.unsupported.empty() ? trim(probe.err.substr(0, 200)) : std::string("<not supported>")) +
                        "); cachegrind's simulation stands in");
      return;
    }
    events = {"cycles", "instructions", "cache-references", "cache-misses", "L1-dcache-loads", "L1-dcache-load-misses",
              "LLC-loads", "LLC-load-misses", "branches", "branch-misses"};
  }
  auto inst = ws.performance_instance();
  if (!inst) return;
  // A timing job: the counters see the timed calls, each after a cache flush,
  // as the evaluation times them.
  wire::Job job = make_job(*inst->task, {&*inst}, wire::JobMode::Time, 0xFF);
  job.timing.warmup = 1;
  job.timing.min_iterations = 5;
  job.timing.max_iterations = 20;
  job.timing.max_seconds = 1.0;
  job.timing.flush_bytes = flush_bytes();
  ws.write_jobs(folder, "perf", {job});
  for (const char* fifo : {"perf.ctl", "perf.ack"}) {
    const auto path = folder / fifo;
    if (::mkfifo(path.c_str(), 0666) != 0 && errno != EEXIST) {
      r.warnings.push_back("perf: cannot make the control FIFO " + std::string(fifo));
      return;
    }
    ::chmod(path.c_str(), 0666);
  }
  std::string list;
  for (const auto& e : events) list += (list.empty() ? "" : ",") + e;
  auto run_env = tool_environment(ws.platform, folder, {{"KGB_PERF_CONTROL", "perf.ctl,perf.ack"}});
  ToolRun run = run_tool({perf, "stat", "-x,", "-D", "-1", "--control", "fifo:perf.ctl,perf.ack", "-o", "perf.txt", "-e", list, "--",
                          exe.string(), "--replay", "perf.requests", "perf.responses"},
                         run_env, ws.platform, folder, ws.options);
  const std::string report = read_text(folder / "perf.txt");
  r.logs["perf"] = cap(report + run.out + run.err);
  if (!run.spawn_error.empty()) {
    r.warnings.push_back("perf could not be started: " + run.spawn_error);
    return;
  }
  ReplayResponses replies = read_replay_responses(folder / "perf.responses");
  for (const auto& e : replies.errors) r.warnings.push_back("under perf: " + e);
  PerfStat stat = parse_perf_stat(report);
  if (stat.counts.empty()) {
    r.warnings.push_back("perf stat counted nothing (" + run.status.describe() + ")");
    return;
  }
  const double calls = std::max<double>(1, static_cast<double>(replies.timed_calls));
  r.tools.push_back("perf stat");
  r.counters["perf.calls"] = static_cast<double>(replies.timed_calls);
  for (const auto& [event, value] : stat.counts) r.counters["perf." + event + "_per_call"] = value / calls;
  for (const auto& e : stat.unsupported) r.notes.push_back("perf: event " + e + " is not supported here");
  auto count = [&](const char* e) {
    auto it = stat.counts.find(e);
    return it == stat.counts.end() ? 0.0 : it->second;
  };
  if (count("cycles") > 0) r.counters["perf.ipc"] = ratio(count("instructions"), count("cycles"));
  if (count("cache-references") > 0) r.counters["perf.cache_miss_rate"] = ratio(count("cache-misses"), count("cache-references"));
  if (count("L1-dcache-loads") > 0) r.counters["perf.l1d_miss_rate"] = ratio(count("L1-dcache-load-misses"), count("L1-dcache-loads"));
  if (count("LLC-loads") > 0) r.counters["perf.llc_miss_rate"] = ratio(count("LLC-load-misses"), count("LLC-loads"));
  if (count("branches") > 0) r.counters["perf.branch_miss_rate"] = ratio(count("branch-misses"), count("branches"));
}

// Cachegrind on a reduced case: simulated I1/D1/LL misses per source line
// of the candidate.
void run_cachegrind(Workspace& ws) {
  ProfileResult& r = ws.result;
  const std::string valgrind = find_program(ws.options.valgrind_program);
  if (valgrind.empty()) {
    r.notes.push_back("cachegrind: '" + ws.options.valgrind_program + "' not found on PATH (Debian: valgrind)");
    return;
  }
  std::vector<std::string> flags = ws.settings.debug_flags;
  flags.insert(flags.end(), ws.settings.cachegrind_flags.begin(), ws.settings.cachegrind_flags.end());
  auto exe = ws.build("cachegrind", flags, {});
  if (!exe) return;
  auto inst = ws.reduced_instance(ws.options.reduced_case_bytes);
  if (!inst) return;
  const auto folder = exe->parent_path();
  auto [requests, responses] = ws.write_replay(folder, "cachegrind", {*inst});
  const HostCaches caches = host_caches();
  std::vector<std::string> argv{valgrind, "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=cachegrind.out"};
  if (caches.i1.size > 0) argv.push_back("--I1=" + caches.i1.cachegrind_spec());
  if (caches.d1.size > 0) argv.push_back("--D1=" + caches.d1.cachegrind_spec());
  if (caches.ll.size > 0) argv.push_back("--LL=" + caches.ll.cachegrind_spec());
  for (const auto& a : {exe->string(), std::string("--replay"), requests, responses}) argv.push_back(a);
  // One thread: valgrind runs threads one at a time anyway, and spinning
  // OpenMP workers would only burn simulated instructions.
  auto env = tool_environment(ws.platform, folder, {{"OMP_NUM_THREADS", "1"}, {"OMP_WAIT_POLICY", "PASSIVE"}, {"GOMP_SPINCOUNT", "0"}});
  ToolRun run = run_tool(argv, env, ws.platform, folder, ws.options);
  r.logs["cachegrind"] = cap(run.err, 16 * 1024);
  if (!run.spawn_error.empty()) {
    r.warnings.push_back("valgrind could not be started: " + run.spawn_error);
    return;
  }
  ReplayResponses replies = read_replay_responses(folder / responses);
  for (const auto& e : replies.errors) r.warnings.push_back("under cachegrind: " + e);
  const std::string candidate_file = "candidate." + ws.platform.source_extension;
  auto report = parse_cachegrind(read_text(folder / "cachegrind.out"), candidate_file);
  if (!report) {
    r.warnings.push_back("cachegrind produced no profile (" + run.status.describe() + "): " + report.error().message);
    return;
  }
  r.tools.push_back("cachegrind");
  for (const auto& [event, value] : report->totals) r.counters["cachegrind." + event] = static_cast<double>(value);
  auto total = [&](const char* e) {
    auto it = report->totals.find(e);
    return it == report->totals.end() ? 0.0 : static_cast<double>(it->second);
  };
  const double data_refs = total("Dr") + total("Dw");
  if (data_refs > 0) {
    r.counters["cachegrind.d1_miss_rate"] = (total("D1mr") + total("D1mw")) / data_refs;
    r.counters["cachegrind.ll_miss_rate"] = (total("DLmr") + total("DLmw")) / data_refs;
  }
  for (const auto& [level, spec] : report->caches) r.counters.emplace("cachegrind.simulated_" + level + "_bytes", std::atof(spec.c_str()));
  const auto lines = source_lines(ws.source);
  for (auto& line : report->lines) {
    if (r.hot_lines.size() >= 10) break;
    if (line.line > 0 && line.line <= static_cast<int>(lines.size())) line.excerpt = trim(lines[static_cast<size_t>(line.line - 1)]);
    r.hot_lines.push_back(line);
  }
  if (report->totals.empty()) r.warnings.push_back("cachegrind saw no instruction of " + candidate_file + " (built without -g?)");
  if (!ws.settings.cachegrind_flags.empty()) {
    std::string f;
    for (const auto& x : ws.settings.cachegrind_flags) f += (f.empty() ? "" : " ") + x;
    r.notes.push_back("cachegrind build: " + f + " (valgrind decodes no AVX-512)");
  }
}

}  // namespace

void profile_cpu(Workspace& ws) {
  const auto& tools = ws.settings.tools;
  const bool want_perf = std::find(tools.begin(), tools.end(), "perf") != tools.end();
  const bool want_cachegrind = std::find(tools.begin(), tools.end(), "cachegrind") != tools.end();
  if (!want_perf && !want_cachegrind) {
    ws.result.notes.push_back(ws.platform.has("emulated")
                                  ? "emulated under " + (ws.platform.emulator.empty() ? std::string("qemu") : ws.platform.emulator.front()) +
                                        ": no performance tools (they would measure the emulator); the sanitizer works (--sanitize)"
                                  : "the platform names no performance tool");
    // Still build, so that compile errors are reported like elsewhere.
    ws.build("profile", ws.settings.debug_flags, {});
    return;
  }
  if (want_perf) {
    auto exe = ws.build("profile", ws.settings.debug_flags, {});
    if (!exe) return;
    run_perf(ws, *exe);
  }
  if (want_cachegrind) run_cachegrind(ws);
}

void sanitize_cpu(Workspace& ws) {
  ProfileResult& r = ws.result;
  const auto& san = *ws.settings.sanitizer;
  if (!san.runner_library.empty() && !std::filesystem::exists(build_root() / san.runner_library)) {
    r.error = "the sanitizer runner library " + san.runner_library + " is not built (enable the backend in CMake)";
    return;
  }
  auto exe = ws.build("sanitize", san.compile_flags, san.link_flags, san.runner_library);
  if (!exe) return;
  std::vector<CaseInstance> instances = ws.correctness_instances();
  if (instances.empty()) {
    r.error = "no correctness case to run under the sanitizer";
    return;
  }
  const auto folder = exe->parent_path();
  auto [requests, responses] = ws.write_replay(folder, "sanitize", instances);
  std::vector<std::string> argv = ws.platform.emulator;
  if (!argv.empty()) {
    const std::string emulator = find_program(argv.front());
    if (emulator.empty()) {
      r.error = "the emulator '" + argv.front() + "' is not on PATH";
      return;
    }
    argv.front() = emulator;
  }
  for (const auto& a : {exe->string(), std::string("--replay"), requests, responses}) argv.push_back(a);
  std::map<std::string, std::string> extra{
      // Leak checks need ptrace and say nothing about a kernel; the first
      // error ends the run with a report.
      {"ASAN_OPTIONS", "detect_leaks=0:halt_on_error=1:abort_on_error=0:allocator_may_return_null=1:symbolize=1:exitcode=86"},
      {"UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1:exitcode=87"}};
  for (const auto& [k, v] : san.environment) extra[k] = v;
  ToolRun run = run_tool(argv, tool_environment(ws.platform, folder, extra), ws.platform, folder, ws.options);
  r.logs["sanitizer"] = cap(run.out + run.err);
  if (!run.spawn_error.empty()) {
    r.error = "the sanitizer build could not be started: " + run.spawn_error;
    return;
  }
  r.sanitizer = "asan+ubsan";
  r.tools.push_back(ws.platform.emulator.empty() ? "asan+ubsan" : "asan+ubsan under " + base_name(ws.platform.emulator.front()));
  SanitizerReport report = parse_asan_output(run.out + "\n" + run.err, "candidate." + ws.platform.source_extension);
  ReplayResponses replies = read_replay_responses(folder / responses);
  r.sanitizer_errors = report.error_count;
  r.findings = std::move(report.findings);
  if (!r.findings.empty()) {
    r.sanitizer_case = case_at(instances, replies.results);
    for (auto& f : r.findings)
      if (!r.sanitizer_case.empty()) f.message += " [case " + r.sanitizer_case + "]";
  } else if (!run.status.exited || run.status.code != 0) {
    r.warnings.push_back("the sanitizer build stopped without a report (" + run.status.describe() + ") in case " +
                         case_at(instances, replies.results));
  }
  for (const auto& e : replies.errors) r.warnings.push_back("under the sanitizer: " + e);
}

}  // namespace kgb::profile
