// The OpenCL C compiler's log becomes gcc-style diagnostics against the
// launcher (candidate.cpp) or, when the program is not found there, against
// the program itself (candidate.cl).
#include <doctest/doctest.h>

#include <string>

#include "kgb_half.h"
#include "opencl_runtime.h"

using kgb::opencl::format_build_log;

TEST_CASE("PoCL's severity-first lines map to launcher lines and columns") {
  const std::string program = "__kernel void k(__global float* x) {\n  x[0] = y;\n}\n";
  const std::string launcher = "#include \"kgb_opencl.h\"\nstatic const char kSource[] = R\"CLC(" + program + ")CLC\";\n";
  const std::string log = "error: /tmp/pocl/kcache/tempfile_QYPUNk.cl:2:10: use of undeclared identifier 'y'\n"
                          "Device pthread failed to build the program\n";
  std::string out = format_build_log(log, program, launcher);
  // The program starts on line 2 of the launcher, so its line 2 is line 3.
  CHECK(out.find("candidate.cpp:3:10: error: use of undeclared identifier 'y'") != std::string::npos);
  CHECK(out.find("    Device pthread failed") != std::string::npos);
}

TEST_CASE("clang-style lines on the program's first line shift the column") {
  const std::string program = "__kernel void k() { undefined(); }";
  const std::string launcher = "const char s[] = R\"(" + program + ")\";\n";
  std::string out = format_build_log("<kernel>:1:21: error: implicit declaration of function 'undefined'\n", program,
                                     launcher);
  // The program text starts at column 21 of line 1.
  CHECK(out.find("candidate.cpp:1:41: error: implicit declaration") != std::string::npos);
}

TEST_CASE("a program not in the launcher is reported against candidate.cl") {
  std::string out = format_build_log("<source>:4:2: warning: unused\n<source>:5:1: error: expected ';'\n", "x", "");
  CHECK(out.find("candidate.cl:4:2: warning: unused") != std::string::npos);
  CHECK(out.find("candidate.cl:5:1: error: expected ';'") != std::string::npos);
}

TEST_CASE("a log without a located error still yields one parsable error") {
  std::string out = format_build_log("ptxas fatal: something broke\n", "x", "");
  CHECK(out.find("candidate.cl:0:0: error: OpenCL program build failed: ptxas fatal: something broke") !=
        std::string::npos);
}

TEST_CASE("a program behind kgb_half.h's helpers still maps to the launcher; the helpers' lines name kgb_half.h") {
  const std::string program = "\n__kernel void k(__global ushort* x) {\n  x[0] = kgb_float_to_f16(y);\n}\n";
  const std::string launcher = "#include \"kgb_half.h\"\n#include \"kgb_opencl.h\"\n"
                               "static const char kSource[] = KGB_CL_HALF_SOURCE R\"CLC(" + program + ")CLC\";\n";
  const std::string log = "<source>:4:27: error: use of undeclared identifier 'y'\n"
                          "<source>:1:7: note: 'kgb_float_to_f16' declared here\n";
  std::string out = format_build_log(log, std::string(KGB_CL_HALF_SOURCE) + program, launcher);
  // Line 4 of the whole program is line 3 after the one-line helpers: the
  // kernel's body line, line 5 of the launcher.
  CHECK(out.find("candidate.cpp:5:27: error: use of undeclared identifier 'y'") != std::string::npos);
  CHECK(out.find("kgb_half.h:1:7: note: 'kgb_float_to_f16' declared here (in KGB_CL_HALF_SOURCE)") != std::string::npos);
}
