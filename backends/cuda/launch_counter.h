// Launch verification for the CUDA runner ("ghost replay", DESIGN 3.5 L2):
// counts the kernel launches issued during a candidate's call with CUPTI's
// callback API and splits them into the candidate's own kernels and library
// kernels (cuBLAS, cuDNN, CUTLASS, ATen ... linked or loaded from elsewhere).
//
// Which kernels are the candidate's own: the candidate executable is linked
// with `-Wl,--wrap=__cudaRegisterFunction` (see the link response file the
// CMake build writes), so every kernel that the executable itself registers
// with the CUDA runtime passes through register_wrap.cpp and is recorded here
// by name. Libraries register their kernels through their own copy of the
// runtime and are not seen. A launch whose kernel name (as CUPTI reports it)
// is a recorded name is "own", any other launch is "library". When nothing was
// recorded (an executable linked without the wrapper, e.g. the baseline
// runner) every launch counts as own.
#pragma once

#include <cstdint>
#include <string>

namespace kgb::runner::cuda {

struct LaunchCounts {
  int64_t own = 0;
  int64_t library = 0;
  int64_t copies = 0;  // cudaMemcpy*/cudaMemset* and cuMemcpy*/cuMemset* calls that succeeded
};

// Called from the link-time wrapper of __cudaRegisterFunction (before main).
void note_own_kernel(const char* device_name);
// Number of kernels recorded through the wrapper.
size_t own_kernel_count();

class LaunchCounter {
 public:
  // Subscribes to CUPTI. Returns false (and a reason) when CUPTI cannot be
  // used, e.g. because a profiler already holds the only subscriber slot.
  bool start(std::string& why);
  void stop();
  bool active() const { return active_; }
  // Launches counted since the previous take().
  LaunchCounts take();

 private:
  bool active_ = false;
  void* subscriber_ = nullptr;
};

// While alive, launches on this thread are the runner's own (stream hold,
// cache flush) and are not counted.
class InternalLaunchScope {
 public:
  InternalLaunchScope();
  ~InternalLaunchScope();
  InternalLaunchScope(const InternalLaunchScope&) = delete;
  InternalLaunchScope& operator=(const InternalLaunchScope&) = delete;
};

}  // namespace kgb::runner::cuda
