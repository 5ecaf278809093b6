// The profile tool's parsers on recorded output of the real tools (label
// unit): AddressSanitizer and UBSan reports of the sanitizer runner, `perf stat
// -x,` on a host without hardware counters, a cachegrind output file (the
// candidate's lines kept), the OpenCL runner's profile file of a candidate
// with two kernels, an Oclgrind report, and hipcc's resource-usage remarks.
// Malformed input gives warnings or errors, never a crash or invented data.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kgb/profile.h"

using namespace kgb::profile;

namespace {

std::string data(const char* name) {
  std::ifstream in(std::filesystem::path(KGB_PROFILE_TEST_DIR) / "data" / name, std::ios::binary);
  REQUIRE_MESSAGE(in, "missing recorded output " << name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("parse_asan_output: a read past a tensor into the poisoned padding, located in the candidate's frame") {
  auto r = parse_asan_output(data("asan_use_after_poison.txt"), "candidate.cpp");
  CHECK(r.summary_seen);
  CHECK(r.error_count == 1);
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings.front();
  CHECK(f.rule == "sanitizer-asan");
  CHECK(f.layer == "L2");
  CHECK(f.severity == "reject");
  CHECK(f.location == "candidate.cpp:17");
  CHECK(f.message ==
        "use-after-poison (past the end of a tensor: the runner poisons the padding behind its storage): READ of 4 bytes in "
        "kgb_blas_saxpy (4036 bytes inside a 4096-byte allocation)");
  // The runner's frames are no location for a candidate's error; without a
  // candidate frame, the first frame with a line is.
  auto other = parse_asan_output(data("asan_use_after_poison.txt"), "kernel.cpp");
  REQUIRE(other.findings.size() == 1);
  CHECK(other.findings.front().location == "candidate.cpp:17");
}

TEST_CASE("parse_asan_output: UBSan's runtime error with its column; nothing from text without a report") {
  auto r = parse_asan_output(data("ubsan_signed_overflow.txt"), "candidate.cpp");
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings.front().rule == "sanitizer-ubsan");
  CHECK(r.findings.front().location == "candidate.cpp:17:47");
  CHECK(r.findings.front().message == "undefined behaviour: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'");
  auto none = parse_asan_output("kgb cpu runner: starting\nSegmentation fault\n", "candidate.cpp");
  CHECK(none.findings.empty());
  CHECK_FALSE(none.summary_seen);
  // A report cut off after its first line still names the error.
  auto cut = parse_asan_output("==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014 at pc 0x1\n", "candidate.cpp");
  REQUIRE(cut.findings.size() == 1);
  CHECK(cut.findings.front().message == "heap-buffer-overflow");
  CHECK(cut.findings.front().location.empty());
}

TEST_CASE("parse_perf_stat: counted events, and the ones this host does not support") {
  auto p = parse_perf_stat(data("perf_stat.csv"));
  CHECK(p.counts.at("task-clock") == doctest::Approx(0.86));
  CHECK(p.counts.at("page-faults") == 48);
  CHECK(p.counts.count("instructions") == 0);
  CHECK(p.unsupported == std::vector<std::string>{"instructions", "cycles"});
  auto junk = parse_perf_stat("not,csv\n\n# comment\n,,\n");
  CHECK(junk.counts.empty());
  CHECK(junk.unsupported.empty());
}

TEST_CASE("parse_cachegrind: the candidate's lines sorted by data misses, totals, simulated caches") {
  auto r = parse_cachegrind(data("cachegrind.out"), "candidate.cpp");
  REQUIRE(r);
  CHECK(r->events == std::vector<std::string>{"Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw"});
  CHECK(r->caches.at("D1") == "32768 B, 64 B, 8-way associative");
  CHECK(r->caches.at("LL") == "33554432 B, 64 B, 16-way associative");
  CHECK(r->program_totals.at("D1mr") == 525537);
  REQUIRE(r->lines.size() == 8);
  // Line 8, the strided loop, has the read misses; line 6, the initialisation, the write misses.
  CHECK(r->lines[0].line == 8);
  CHECK(r->lines[0].misses() == 524288);
  CHECK(r->lines[1].line == 6);
  CHECK(r->lines[1].misses() == 1 + 1 + 32768 + 32768);
  CHECK(r->totals.at("Dr") == 524288 + 1 + 2 + 2);
  CHECK(r->lines[0].file == "candidate.cpp");
  // Another file's lines are not the candidate's.
  auto other = parse_cachegrind(data("cachegrind.out"), "glue.cpp");
  REQUIRE(other);
  CHECK(other->lines.empty());
  CHECK(other->totals.empty());
  auto bad = parse_cachegrind("this is not a cachegrind file\n", "candidate.cpp");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == "cachegrind.output");
}

TEST_CASE("parse_opencl_profile: two kernels per call, the warm-up job left out, attributes, a malformed line warned about") {
  const std::string text = data("opencl_profile.jsonl") + "{not json\n{\"type\":\"enqueue\"}\n";
  auto p = parse_opencl_profile(text, 1);
  REQUIRE(p.kernels.size() == 2);
  CHECK(p.kernels[0].name == "saxpy_head");
  CHECK(p.kernels[1].name == "saxpy_tail");
  REQUIRE(p.enqueues.size() == 2);  // job 1 only
  CHECK(p.enqueues[0].job == 1);
  CHECK(p.enqueues[0].global == std::vector<int64_t>{768});
  CHECK(p.enqueues[0].local == std::vector<int64_t>{64});
  CHECK(p.enqueues[0].duration_us() == doctest::Approx((21131701492731.0 - 21131701490298.0) / 1000));
  CHECK(p.kernels[0].launches == 1);
  CHECK(p.kernels[0].grid == "[768]");
  CHECK(p.kernels[0].block == "[64]");
  CHECK(p.kernels[0].share + p.kernels[1].share == doctest::Approx(1.0));
  CHECK(p.kernels[0].share == doctest::Approx(2433.0 / (2433.0 + 1522.0)));
  CHECK(p.kernels[0].attributes.at("preferred_work_group_multiple") == 8);
  CHECK(p.kernels[0].attributes.at("args") == 9);
  CHECK(p.warnings.size() == 2);
  // From job 0: both calls.
  CHECK(parse_opencl_profile(text, 0).enqueues.size() == 4);
}

TEST_CASE("parse_oclgrind_output: an invalid read with kernel, work-item and program line; the launcher line found by its text") {
  auto r = parse_oclgrind_output(data("oclgrind_invalid_read.txt"));
  CHECK(r.error_count == 1);
  REQUIRE(r.findings.size() == 1);
  const auto& f = r.findings.front();
  CHECK(f.rule == "sanitizer-oclgrind");
  CHECK(f.location == "program line 6");
  CHECK(f.message.find("Invalid read of size 4") == 0);
  CHECK(f.message.find("in kernel saxpy, work-item Global(1008,0,0)") != std::string::npos);
  const std::string launcher = "// header\nstatic const char k[] = R\"(\n__kernel void saxpy() {\n  if (i < n) y[yo + i * incy] += alpha * x[xo + j * incx];\n}\n)\";\n";
  CHECK(find_program_line(launcher, "  if (i < n) y[yo + i * incy] += alpha * x[xo + j * incx];") == 4);
  CHECK(find_program_line(launcher + launcher, "if (i < n) y[yo + i * incy] += alpha * x[xo + j * incx];") == 0);  // ambiguous
  CHECK(parse_oclgrind_output("").findings.empty());
}

TEST_CASE("parse_hip_resource_usage: registers, scratch, LDS and occupancy per kernel, demangled") {
  auto k = parse_hip_resource_usage(data("hip_resource_usage.txt"));
  REQUIRE(k.size() >= 2);
  CHECK(k[0].name.find("saxpy_unit4") != std::string::npos);
  CHECK(k[0].attributes.at("sgpr") == 18);
  CHECK(k[0].attributes.at("vgpr") == 16);
  CHECK(k[0].attributes.at("occupancy_waves") == 8);
  CHECK(k[0].attributes.at("lds_bytes") == 0);
  CHECK(k[1].attributes.at("sgpr") == 22);
  CHECK(parse_hip_resource_usage("candidate.hip:1:1: warning: unused\n").empty());
}
