// main() of every OpenCL candidate executable: open the platform's device and
// serve the protocol with the candidate resolved by the generated glue (or a
// recorded request stream with --replay, see kgb_runner_replay.h).
#include <cstdio>

#include "kgb_runner_replay.h"
#include "opencl_device.h"

int main(int argc, char** argv) {
  if (kgb::runner::launch_mode(argc, argv, "kgb opencl runner") == kgb::runner::LaunchMode::Error) return 2;
  kgb::runner::OpenClDevice device;
  if (!device.init_error().empty()) {
    std::fprintf(stderr, "kgb opencl runner: no usable device: %s\n", device.init_error().c_str());
    return 80;
  }
  return kgb::runner::serve(device, [] { return "candidate"; });
}
