// main() of every OpenCL candidate executable: open the platform's device and
// serve the protocol with the candidate resolved by the generated glue.
#include <cstdio>

#include "opencl_device.h"

int main() {
  kgb::runner::OpenClDevice device;
  if (!device.init_error().empty()) {
    std::fprintf(stderr, "kgb opencl runner: no usable device: %s\n", device.init_error().c_str());
    return 80;
  }
  return kgb::runner::serve(device, [] { return "candidate"; });
}
