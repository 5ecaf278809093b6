// aten/expand on the CPU: the result is a view, so the entry only describes
// it. Dims are matched from the innermost; a kept dim keeps self's stride, a
// broadcast or new leading dim gets stride 0, and the first element (data,
// storage_offset) stays where self's is. No element is touched.
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_expand(const kgb_tensor* self, kgb_int_list size, int implicit, kgb_tensor* out,
                               kgb_stream stream) {
  (void)implicit;
  (void)stream;
  const int64_t rank = size.count;
  if (rank < self->rank || rank > KGB_MAX_RANK) return KGB_ERR_INVALID;
  const int64_t leading = rank - self->rank;  // new dims in front of self's
  int64_t sizes[KGB_MAX_RANK], strides[KGB_MAX_RANK];
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t target = size.values[i];
    if (i < leading) {
      if (target < 0) return KGB_ERR_INVALID;  // -1 is not allowed in a new dim
      sizes[i] = target;
      strides[i] = 0;
      continue;
    }
    const int64_t have = self->sizes[i - leading];
    if (target == -1 || target == have) {
      sizes[i] = have;
      strides[i] = self->strides[i - leading];
    } else if (have == 1 && target >= 0) {
      sizes[i] = target;
      strides[i] = 0;
    } else {
      return KGB_ERR_INVALID;
    }
  }
  out->data = self->data;
  out->rank = static_cast<int32_t>(rank);
  for (int64_t i = 0; i < rank; ++i) {
    out->sizes[i] = sizes[i];
    out->strides[i] = strides[i];
  }
  out->storage_offset = self->storage_offset;
  out->flags = self->flags;
  return KGB_OK;
}
