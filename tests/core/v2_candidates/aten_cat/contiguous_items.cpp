// Wrong: assumes the items of the list lie back to back, contiguous and in
// list order, starting at items[0]->data, as if the list were one tensor
// already concatenated along dim 0. Each item k is read from where it would
// be if that held. The items really live in one allocation in a shuffled
// order with poisoned gaps between them, so every item after the first (and
// any non-contiguous item) is read from the wrong place (expected: value
// mismatches, whatever the dim).
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_cat(const kgb_tensor_list* tensors, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const int rank = out->rank;
  if (dim < 0) dim += rank;
  const int64_t elem = kgb_dtype_size(out->dtype);
  const char* src = tensors->count > 0 ? static_cast<const char*>(tensors->items[0]->data) : nullptr;
  int64_t at = 0;  // along dim
  for (int64_t k = 0; k < tensors->count; ++k) {
    const kgb_tensor* t = tensors->items[k];
    if (t->rank == 1 && t->sizes[0] == 0) continue;
    const int64_t n = kgb_numel(t);
    for (int64_t i = 0; i < n; ++i) {  // item k as a contiguous block right after item k-1
      int64_t rest = i, o = 0;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t idx = rest % t->sizes[d];
        rest /= t->sizes[d];
        o += (d == dim ? idx + at : idx) * out->strides[d];
      }
      memcpy(static_cast<char*>(out->data) + o * elem, src + i * elem, static_cast<size_t>(elem));
    }
    src += n * elem;
    at += t->sizes[dim];
  }
  return KGB_OK;
}
