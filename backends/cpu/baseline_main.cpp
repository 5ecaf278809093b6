// main() of the prebuilt CPU baseline runner: the same protocol and timing
// loop as candidates, with the implementation taken from the baseline registry.
#include <algorithm>
#include <thread>

#include "cpu_device.h"
#include "kgb_baseline.h"
#ifdef KGB_HAVE_TORCH
#include <ATen/Parallel.h>
#endif

static const char* g_kind = "none";

extern "C" kgb_invoke_fn kgb_runner_resolve(const char* task_id) {
  const kgb::BaselineEntry* entry = kgb::find_baseline(task_id);
  if (!entry) return nullptr;
  g_kind = entry->kind;
  return entry->invoke;
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
