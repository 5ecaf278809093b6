// The library's two exports: the per-op adapters registered in it (files next
// to this one, KGB_BASELINE), and the call of any ATen operator by name
// through the dispatcher for every other ATen task.
#include <cstring>
#include <string>

#include "kgb_baseline.h"
#include "torch_cuda_common.h"

// A per-op adapter for a key, or NULL.
extern "C" __attribute__((visibility("default"))) kgb_invoke_fn kgb_cuda_aten_lookup(const char* key) {
  const kgb::BaselineEntry* entry = kgb::find_baseline(key);
  return entry ? entry->invoke : nullptr;
}

// The entry's operator through the dispatcher, on the harness stream. The
// first device pointer among the arguments says which device the buffers are on.
extern "C" __attribute__((visibility("default"))) int kgb_cuda_aten_call(const kgb::wire::EntrySignature* entry,
                                                                        const kgb_arg* args, int32_t nargs, kgb_stream stream) {
  if (!entry) return KGB_ERR_INVALID;
  const void* any = nullptr;
  for (int32_t i = 0; i < nargs && !any; ++i) {
    const auto kind = static_cast<kgb::wire::ArgKind>(entry->params[i].kind);
    if (kind == kgb::wire::ArgKind::Tensor && args[i].t) any = args[i].t->data;
    if (kind == kgb::wire::ArgKind::List && args[i].l)
      for (int64_t k = 0; k < args[i].l->count && !any; ++k)
        if (args[i].l->items[k]) any = args[i].l->items[k]->data;
  }
  return kgb::cuda_torch::on_stream(any, stream, [&](const at::Device& device) {
    auto r = kgb::aten_dispatch::call_operator(*entry, args, nargs, device);
    if (r.status != KGB_OK) std::fprintf(stderr, "kgb cuda aten baseline: %s: %s\n", entry->key.c_str(), r.message.c_str());
    return r.status;
  });
}
