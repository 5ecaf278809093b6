// main() of the prebuilt CUDA baseline runner: the same protocol, device and
// timing loop as candidates, with the implementation taken from the baseline
// registry (cuBLAS, plain CUDA written here) or, for ATen tasks, from the
// libtorch CUDA baselines. Those live in a shared library next to this
// executable that is loaded only when an ATen task is asked for: loading
// libtorch takes seconds that the other tasks' evaluations should not pay.
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cuda_device.h"
#include "kgb_baseline.h"

namespace {

const char* g_kind = "none";

kgb_invoke_fn aten_baseline(const char* task_id) {
#ifdef KGB_CUDA_ATEN_LIBRARY
  char self[PATH_MAX] = {0};
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return nullptr;
  std::string dir(self, static_cast<size_t>(n));
  dir = dir.substr(0, dir.find_last_of('/') + 1);
  void* lib = ::dlopen((dir + KGB_CUDA_ATEN_LIBRARY).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "kgb cuda baselines: cannot load the libtorch baselines: %s\n", ::dlerror());
    return nullptr;
  }
  using Lookup = kgb_invoke_fn (*)(const char*);
  auto lookup = reinterpret_cast<Lookup>(::dlsym(lib, "kgb_cuda_aten_baseline"));
  return lookup ? lookup(task_id) : nullptr;
#else
  (void)task_id;
  return nullptr;
#endif
}

}  // namespace

extern "C" kgb_invoke_fn kgb_runner_resolve(const char* task_id) {
  if (const kgb::BaselineEntry* entry = kgb::find_baseline(task_id)) {
    g_kind = entry->kind;
    return entry->invoke;
  }
  if (std::string(task_id).rfind("aten/", 0) == 0) {
    if (kgb_invoke_fn fn = aten_baseline(task_id)) {
      g_kind = "aten (libtorch CUDA)";
      return fn;
    }
  }
  return nullptr;
}

int main() {
  // Library baselines launch library kernels by design: no launch counting.
  kgb::runner::cuda::CudaDeviceOptions options;
  options.count_launches = false;
  kgb::runner::cuda::CudaDevice device(options);
  return kgb::runner::serve(device, [] { return g_kind; });
}
