// main() of the prebuilt OpenCL baseline runner: the same device, protocol and
// timing loop as candidates, with the implementation from the baseline registry.
#include <cstdio>

#include "kgb_baseline.h"
#include "opencl_device.h"

static const char* g_kind = "none";

extern "C" kgb_invoke_fn kgb_runner_resolve(const char* task_id) {
  const kgb::BaselineEntry* entry = kgb::find_baseline(task_id);
  if (!entry) return nullptr;
  g_kind = entry->kind;
  return entry->invoke;
}

int main() {
  kgb::runner::OpenClDevice device;
  if (!device.init_error().empty()) {
    std::fprintf(stderr, "kgb opencl baseline runner: no usable device: %s\n", device.init_error().c_str());
    return 80;
  }
  return kgb::runner::serve(device, [] { return g_kind; });
}
