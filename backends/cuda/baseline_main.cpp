// main() of the prebuilt CUDA baseline runner: the same protocol, device and
// timing loop as candidates, with the implementation taken from the baseline
// registry (cuBLAS, plain CUDA written here) or, for ATen tasks, from the
// libtorch CUDA baselines (per-op adapters, else the operator by name). Those live in a shared library next to this
// executable that is loaded only when an ATen task is asked for: loading
// libtorch takes seconds that the other tasks' evaluations should not pay.
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cuda_device.h"
#include "kgb/wire.h"
#include "kgb_baseline.h"

namespace {

const char* g_kind = "none";

// The libtorch CUDA baselines, loaded on first need.
struct TorchLibrary {
  using Lookup = kgb_invoke_fn (*)(const char*);
  using Call = int (*)(const kgb::wire::EntrySignature*, const kgb_arg*, int32_t, kgb_stream);
  Lookup lookup = nullptr;
  Call call = nullptr;
};

const TorchLibrary& torch_library() {
  static TorchLibrary library = [] {
    TorchLibrary l;
#ifdef KGB_CUDA_ATEN_LIBRARY
    char self[PATH_MAX] = {0};
    ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return l;
    std::string dir(self, static_cast<size_t>(n));
    dir = dir.substr(0, dir.find_last_of('/') + 1);
    void* lib = ::dlopen((dir + KGB_CUDA_ATEN_LIBRARY).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      std::fprintf(stderr, "kgb cuda baselines: cannot load the libtorch baselines: %s\n", ::dlerror());
      return l;
    }
    l.lookup = reinterpret_cast<TorchLibrary::Lookup>(::dlsym(lib, "kgb_cuda_aten_lookup"));
    l.call = reinterpret_cast<TorchLibrary::Call>(::dlsym(lib, "kgb_cuda_aten_call"));
#endif
    return l;
  }();
  return library;
}

int aten_through_dispatcher(const kgb_arg* args, int32_t nargs, kgb_stream stream) {
  return torch_library().call(kgb::runner::current_entry(), args, nargs, stream);
}

}  // namespace

extern "C" kgb_invoke_fn kgb_runner_resolve(const char* key) {
  if (const kgb::BaselineEntry* entry = kgb::find_baseline(key)) {
    g_kind = entry->kind;
    return entry->invoke;
  }
  const kgb::wire::EntrySignature* signature = kgb::runner::entry_signature(key);
  if (!signature || signature->upstream_name.rfind("aten::", 0) != 0) return nullptr;
  const TorchLibrary& torch = torch_library();
  if (torch.lookup)
    if (kgb_invoke_fn fn = torch.lookup(key)) {
      g_kind = "aten (libtorch CUDA)";
      return fn;
    }
  if (!torch.call) return nullptr;
  g_kind = "aten (libtorch CUDA)";
  return aten_through_dispatcher;
}

int main() {
  // Library baselines launch library kernels by design: no launch counting.
  kgb::runner::cuda::CudaDeviceOptions options;
  options.count_launches = false;
  kgb::runner::cuda::CudaDevice device(options);
  return kgb::runner::serve(device, [] { return g_kind; });
}
