// main() of the prebuilt CPU baseline runner: the same protocol and timing
// loop as candidates, with the implementation taken from the baseline registry.
#include "cpu_device.h"
#include "kgb_baseline.h"

static const char* g_kind = "none";

extern "C" kgb_invoke_fn kgb_runner_resolve(const char* task_id) {
  const kgb::BaselineEntry* entry = kgb::find_baseline(task_id);
  if (!entry) return nullptr;
  g_kind = entry->kind;
  return entry->invoke;
}

int main() {
  kgb::runner::CpuDevice device;
  return kgb::runner::serve(device, [] { return g_kind; });
}
