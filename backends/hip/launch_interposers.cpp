// Interposers for the HIP launch calls. The runner library is linked into
// every HIP candidate before libamdhip64, so the host stubs of the candidate's
// kernels (`<<<>>>`, hipLaunchKernelGGL) call these definitions, which count
// the launch and forward to the runtime's function found with dlsym(RTLD_NEXT).
// Only accepted launches count as device work.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "hip_device.h"

namespace kgb::runner::hip {
namespace {

std::atomic<int64_t> g_launches{0};

template <typename Fn>
Fn next_symbol(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr, "kgb hip runner: %s not found in the HIP runtime\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(p);
}

hipError_t counted(hipError_t result) {
  if (result == hipSuccess) g_launches.fetch_add(1, std::memory_order_relaxed);
  return result;
}

}  // namespace

int64_t take_interposed_launches() { return g_launches.exchange(0); }

}  // namespace kgb::runner::hip

using kgb::runner::hip::counted;

extern "C" {

hipError_t hipLaunchKernel(const void* function_address, dim3 blocks, dim3 threads, void** args, size_t shared_bytes,
                           hipStream_t stream) {
  static const auto real =
      kgb::runner::hip::next_symbol<hipError_t (*)(const void*, dim3, dim3, void**, size_t, hipStream_t)>(
          "hipLaunchKernel");
  return counted(real(function_address, blocks, threads, args, shared_bytes, stream));
}

hipError_t hipExtLaunchKernel(const void* function_address, dim3 blocks, dim3 threads, void** args,
                              size_t shared_bytes, hipStream_t stream, hipEvent_t start, hipEvent_t stop, int flags) {
  static const auto real = kgb::runner::hip::next_symbol<hipError_t (*)(
      const void*, dim3, dim3, void**, size_t, hipStream_t, hipEvent_t, hipEvent_t, int)>("hipExtLaunchKernel");
  return counted(real(function_address, blocks, threads, args, shared_bytes, stream, start, stop, flags));
}

hipError_t hipLaunchCooperativeKernel(const void* f, dim3 blocks, dim3 threads, void** args, unsigned int shared_bytes,
                                      hipStream_t stream) {
  static const auto real =
      kgb::runner::hip::next_symbol<hipError_t (*)(const void*, dim3, dim3, void**, unsigned int, hipStream_t)>(
          "hipLaunchCooperativeKernel");
  return counted(real(f, blocks, threads, args, shared_bytes, stream));
}

}  // extern "C"
