// main() of every CPU candidate executable: serve the protocol with the
// candidate resolved by the generated glue.
#include "cpu_device.h"

int main() {
  kgb::runner::CpuDevice device;
  return kgb::runner::serve(device, [] { return "candidate"; });
}
