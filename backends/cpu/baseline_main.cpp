// main() of the prebuilt CPU baseline runner: the same protocol and timing
// loop as candidates, with the implementation taken from the baseline
// registry, or for an ATen task without a file of its own, its operator
// called through libtorch's dispatcher.
#include <algorithm>
#include <cstdio>
#include <thread>

#include "cpu_device.h"
#include "kgb/wire.h"
#include "kgb_baseline.h"
#ifdef KGB_HAVE_TORCH
#include <ATen/Parallel.h>

#include "aten_dispatch.h"
#endif

namespace {

const char* g_kind = "none";

#ifdef KGB_HAVE_TORCH
int aten_through_dispatcher(const kgb_arg* args, int32_t nargs, kgb_stream) {
  const kgb::wire::EntrySignature* entry = kgb::runner::current_entry();
  if (!entry) return KGB_ERR_INVALID;
  auto r = kgb::aten_dispatch::call_operator(*entry, args, nargs, at::Device(at::kCPU));
  if (r.status != KGB_OK) std::fprintf(stderr, "kgb-baseline-cpu: %s: %s\n", entry->key.c_str(), r.message.c_str());
  return r.status;
}
#endif

}  // namespace

extern "C" kgb_invoke_fn kgb_runner_resolve(const char* key) {
  if (const kgb::BaselineEntry* entry = kgb::find_baseline(key)) {
    g_kind = entry->kind;
    return entry->invoke;
  }
#ifdef KGB_HAVE_TORCH
  const kgb::wire::EntrySignature* signature = kgb::runner::entry_signature(key);
  if (signature && signature->upstream_name.rfind("aten::", 0) == 0) {
    g_kind = "aten";
    return aten_through_dispatcher;
  }
#endif
  return nullptr;
}

int main() {
#ifdef KGB_HAVE_TORCH
  // libtorch sizes its pool from physical cores and may pick 1 on small VMs,
  // while candidates get every online core through OpenMP: compare like with like.
  at::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
#endif
  kgb::runner::CpuDevice device;
  return kgb::runner::serve(device, [] { return g_kind; });
}
