#include "launch_counter.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <array>
#include <tuple>
#include <unordered_set>

#include <cxxabi.h>

#include <cupti.h>

namespace kgb::runner::cuda {
namespace {

// Filled before main by the registration wrapper (single-threaded static
// initialisation), read-only afterwards.
std::unordered_set<std::string>& own_names() {
  static std::unordered_set<std::string> names;
  return names;
}

std::atomic<int64_t> g_own{0};
std::atomic<int64_t> g_library{0};
std::atomic<int64_t> g_copies{0};
// Callback ids of the copy and fill calls (found by name at start-up: there
// are dozens of variants, and CUDA releases add more).
std::unordered_set<uint32_t>& copy_ids(CUpti_CallbackDomain domain) {
  static std::unordered_set<uint32_t> runtime, driver;
  return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime : driver;
}
std::atomic<int> g_internal{0};
// Depth of runtime launch calls on this thread: the driver calls that the
// runtime makes for them must not be counted a second time.
thread_local int t_runtime_depth = 0;

bool is_own_kernel(const char* symbol) {
  const auto& names = own_names();
  if (names.empty()) return true;  // not linked with the wrapper: nothing to tell apart
  if (!symbol || !*symbol) return true;
  return names.count(symbol) > 0;
}

// KGB_CUDA_LAUNCH_LOG=1 in the runner's environment (a descriptor's
// "environment") prints every counted launch: how a kernel was classified.
const bool g_log = std::getenv("KGB_CUDA_LAUNCH_LOG") != nullptr;

void count_launch(const char* symbol, bool graph) {
  if (g_internal.load(std::memory_order_relaxed) > 0) return;
  const bool own = graph || is_own_kernel(symbol);
  if (own) g_own.fetch_add(1, std::memory_order_relaxed);
  else g_library.fetch_add(1, std::memory_order_relaxed);
  if (g_log) std::fprintf(stderr, "kgb cuda runner: %s launch: %s\n", own ? "own" : "library", symbol ? symbol : "(no name)");
}

bool is_runtime_graph(CUpti_CallbackId cbid) {
  return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 || cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
}

bool is_driver_graph(CUpti_CallbackId cbid) {
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

void count_copy() {
  if (g_internal.load(std::memory_order_relaxed) > 0) return;
  g_copies.fetch_add(1, std::memory_order_relaxed);
  if (g_log) std::fprintf(stderr, "kgb cuda runner: copy or fill\n");
}

void CUPTIAPI on_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (copy_ids(domain).count(cbid)) {
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
      if (cb->callbackSite == CUPTI_API_ENTER) {
        ++t_runtime_depth;
        return;
      }
      --t_runtime_depth;
      if (cb->functionReturnValue && *static_cast<const cudaError_t*>(cb->functionReturnValue) == cudaSuccess) count_copy();
    } else if (cb->callbackSite == CUPTI_API_EXIT && t_runtime_depth == 0 && cb->functionReturnValue &&
               *static_cast<const CUresult*>(cb->functionReturnValue) == CUDA_SUCCESS) {
      count_copy();
    }
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (cb->callbackSite == CUPTI_API_ENTER) {
      ++t_runtime_depth;
      return;
    }
    --t_runtime_depth;
    // Only launches that were accepted count as device work.
    if (cb->functionReturnValue && *static_cast<const cudaError_t*>(cb->functionReturnValue) == cudaSuccess)
      count_launch(cb->symbolName, is_runtime_graph(cbid));
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (cb->callbackSite != CUPTI_API_EXIT || t_runtime_depth > 0) return;
    if (cb->functionReturnValue && *static_cast<const CUresult*>(cb->functionReturnValue) == CUDA_SUCCESS)
      count_launch(cb->symbolName, is_driver_graph(cbid));
  }
}

constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
#if CUPTI_API_VERSION >= 130000
    // CUDA 13: what `kernel<<<...>>>` compiles to.
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
#endif
};

constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

std::string cupti_error(const char* what, CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return std::string(what) + ": " + (text ? text : "unknown CUPTI error") + " (" + std::to_string(static_cast<int>(r)) + ")";
}

}  // namespace

void note_own_kernel(const char* device_name) {
  if (!device_name || !*device_name) return;
  own_names().insert(device_name);
  // CUPTI may report a demangled name: keep that form too.
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(device_name, nullptr, nullptr, &status), std::free);
  if (status == 0 && demangled) own_names().insert(demangled.get());
}

size_t own_kernel_count() { return own_names().size(); }

bool LaunchCounter::start(std::string& why) {
  if (active_) return true;
  CUpti_SubscriberHandle subscriber = nullptr;
  CUptiResult r = cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_api), nullptr);
  if (r != CUPTI_SUCCESS) {
    why = cupti_error("cuptiSubscribe", r);
    return false;
  }
  for (CUpti_CallbackId id : kRuntimeLaunches) {
    r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
    if (r != CUPTI_SUCCESS) {
      why = cupti_error("cuptiEnableCallback (runtime)", r);
      cuptiUnsubscribe(subscriber);
      return false;
    }
  }
  for (CUpti_CallbackId id : kDriverLaunches) {
    r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
    if (r != CUPTI_SUCCESS) {
      why = cupti_error("cuptiEnableCallback (driver)", r);
      cuptiUnsubscribe(subscriber);
      return false;
    }
  }
  // Copies and fills count as device work for tasks whose work is a copy
  // (device_work: copy): every runtime and driver call named like one.
  for (auto [domain, size, prefixes] : {std::tuple{CUPTI_CB_DOMAIN_RUNTIME_API, static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_SIZE),
                                                   std::array<const char*, 2>{"cudaMemcpy", "cudaMemset"}},
                                        std::tuple{CUPTI_CB_DOMAIN_DRIVER_API, static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_SIZE),
                                                   std::array<const char*, 2>{"cuMemcpy", "cuMemset"}}}) {
    for (uint32_t id = 1; id < size; ++id) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || !name) continue;
      bool copy = false;
      for (const char* prefix : prefixes) copy = copy || std::strncmp(name, prefix, std::strlen(prefix)) == 0;
      if (!copy) continue;
      if (cuptiEnableCallback(1, subscriber, domain, id) == CUPTI_SUCCESS) copy_ids(domain).insert(id);
    }
  }
  subscriber_ = subscriber;
  active_ = true;
  take();
  return true;
}

void LaunchCounter::stop() {
  if (!active_) return;
  cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
  subscriber_ = nullptr;
  active_ = false;
}

LaunchCounts LaunchCounter::take() {
  LaunchCounts c;
  c.own = g_own.exchange(0);
  c.library = g_library.exchange(0);
  c.copies = g_copies.exchange(0);
  return c;
}

InternalLaunchScope::InternalLaunchScope() { g_internal.fetch_add(1); }
InternalLaunchScope::~InternalLaunchScope() { g_internal.fetch_sub(1); }

}  // namespace kgb::runner::cuda
