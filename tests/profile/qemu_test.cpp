// The emulated CPU platforms (label slow): on cpu-aarch64 the ASan+UBSan
// build of the candidate runs under qemu-aarch64 and reports the planted
// out-of-bounds read with its line; no performance tool runs (they would
// measure the emulator). cpu-riscv64 has no sanitizer and says why.
#include <doctest/doctest.h>

#include "profile_test_support.h"

using namespace kgb;
using namespace kgb::test;

TEST_CASE("sanitize on cpu-aarch64 under qemu: the planted out-of-bounds read with its line") {
  KGB_REQUIRE_PLATFORM(arm, "cpu-aarch64");
  profile::ProfileOptions o;
  o.sanitize = true;
  o.case_filter = "prime_1009";
  const std::string source = test_kernel("cpu_saxpy_oob_read.cpp");
  auto r = profile::profile_candidate(task("blas/saxpy"), *arm, source, o);
  INFO(describe(r));
  CHECK(r.error.empty());
  CHECK(r.tools == std::vector<std::string>{"asan+ubsan under qemu-aarch64"});
  REQUIRE(!r.findings.empty());
  CHECK(r.findings.front().rule == "sanitizer-asan");
  const std::string line = "candidate.cpp:" + std::to_string(line_of(source, "KGB-PLANTED-OOB"));
  CHECK((r.findings.front().location == line || r.findings.front().location.rfind(line + ":", 0) == 0));
  // No counters on an emulator, and the result says so.
  REQUIRE(!r.notes.empty());
  CHECK(r.notes.front().find("emulated under qemu-aarch64") == 0);
}

TEST_CASE("profile on cpu-riscv64: compile errors are reported, and the missing sanitizer is explained") {
  KGB_REQUIRE_PLATFORM(riscv, "cpu-riscv64");
  profile::ProfileOptions o;
  o.sanitize = true;
  auto r = profile::profile_candidate(task("blas/saxpy"), *riscv, *bundled_solution(task("blas/saxpy"), "cpu.cpp"), o);
  INFO(describe(r));
  CHECK(r.compiled);
  CHECK(r.error.empty());
  CHECK(r.tools.empty());
  CHECK(r.sanitizer_errors == -1);
  REQUIRE(r.notes.size() == 2);
  CHECK(r.notes[1].find("no sanitizer on cpu-riscv64: AddressSanitizer's allocator fails under qemu-riscv64") == 0);
}
