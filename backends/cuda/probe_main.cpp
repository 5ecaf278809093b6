// kgb-cuda-probe [sm_XX | sm_XXa]: says whether this host has a CUDA device
// that can run code built for the given target (exit 0) or why not (exit 1),
// in one line on stdout. check_availability() runs it for CUDA platforms
// (the descriptor's "probe"), so that a host without a GPU reports the
// platform as unavailable for running and timing with a clear reason.
//
// Device selection follows the runner: KGB_CUDA_DEVICE (default 0). Only the
// driver is asked (no context is created), so the probe stays fast.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Target {
  int major = 0, minor = 0;
  bool arch_specific = false;  // sm_90a: only a device of exactly this capability
};

bool parse_target(const char* s, Target& t) {
  if (std::strncmp(s, "sm_", 3) != 0) return false;
  const char* digits = s + 3;
  size_t n = std::strspn(digits, "0123456789");
  if (n < 2) return false;
  int value = std::atoi(std::string(digits, n).c_str());
  t.major = value / 10;
  t.minor = value % 10;
  const char* rest = digits + n;
  if (*rest == 'a' || *rest == 'f') {
    t.arch_specific = true;
    ++rest;
  }
  return *rest == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  Target target;
  if (argc > 2 || (argc == 2 && !parse_target(argv[1], target))) {
    std::printf("usage: kgb-cuda-probe [sm_XX|sm_XXa]\n");
    return 2;
  }
  int ordinal = 0;
  if (const char* v = std::getenv("KGB_CUDA_DEVICE"); v && *v) ordinal = std::atoi(v);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    std::printf("no usable CUDA device: %s (%s)\n", cudaGetErrorString(e), cudaGetErrorName(e));
    return 1;
  }
  if (count == 0 || ordinal < 0 || ordinal >= count) {
    std::printf("no CUDA device %d (%d visible)\n", ordinal, count);
    return 1;
  }
  int major = 0, minor = 0;
  char name[256] = {0};
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal) != cudaSuccess) {
    std::printf("CUDA device %d does not answer: %s\n", ordinal, cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, ordinal) == cudaSuccess) std::snprintf(name, sizeof name, "%s", prop.name);
  if (argc == 2) {
    // Architecture-specific code (sm_90a) runs only on that capability; plain
    // targets carry PTX (see the descriptors) and run on the same or newer.
    bool runs = target.arch_specific ? (major == target.major && minor == target.minor)
                                     : (major > target.major || (major == target.major && minor >= target.minor));
    if (!runs) {
      std::printf("CUDA device %d (%s, sm_%d%d) cannot run code built for %s\n", ordinal, name, major, minor, argv[1]);
      return 1;
    }
  }
  std::printf("CUDA device %d: %s, sm_%d%d\n", ordinal, name, major, minor);
  return 0;
}
