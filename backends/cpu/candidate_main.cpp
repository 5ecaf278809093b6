// main() of every CPU candidate executable: serve the protocol with the
// candidate resolved by the generated glue (or a recorded request stream with
// --replay, see kgb_runner_replay.h).
#include "cpu_device.h"
#include "kgb_runner_replay.h"

int main(int argc, char** argv) {
  if (kgb::runner::launch_mode(argc, argv, "kgb cpu runner") == kgb::runner::LaunchMode::Error) return 2;
  kgb::runner::CpuDevice device;
  return kgb::runner::serve(device, [] { return "candidate"; });
}
