// main() of every CUDA candidate executable: serve the protocol with the
// candidate resolved by the generated glue.
//
// `candidate --replay REQUESTS RESPONSES` serves a recorded request stream
// from a file instead of the parent's pipe and writes the responses to a
// file. The profile tool uses it to run a candidate under Nsight Compute or
// compute-sanitizer, which start the program themselves. Launch counting is
// off then: the profilers own CUPTI.
#include "cuda_device.h"
#include "kgb_runner_replay.h"

int main(int argc, char** argv) {
  kgb::runner::cuda::CudaDeviceOptions options;
  switch (kgb::runner::launch_mode(argc, argv, "kgb cuda runner")) {
    case kgb::runner::LaunchMode::Error: return 2;
    case kgb::runner::LaunchMode::Replay:
      options.count_launches = false;
      options.hold_stream = false;
      break;
    case kgb::runner::LaunchMode::Serve: break;
  }
  kgb::runner::cuda::CudaDevice device(options);
  return kgb::runner::serve(device, [] { return "candidate"; });
}
