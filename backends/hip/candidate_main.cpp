// main() of every HIP candidate executable: open the device (KGB_HIP_DEVICE,
// default 0) and serve the protocol with the candidate resolved by the glue.
#include <cstdio>

#include "hip_device.h"

int main() {
  kgb::runner::hip::HipDevice device;
  if (!device.sticky_error().empty()) {
    std::fprintf(stderr, "kgb hip runner: %s\n", device.sticky_error().c_str());
    return 80;
  }
  return kgb::runner::serve(device, [] { return "candidate"; });
}
