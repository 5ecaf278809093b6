// Wrong: treats expand as expand_copy. out arrives without storage, so the
// broadcast values are materialised into a buffer of the kernel's own and out
// describes that contiguous copy. The values are right; the result is not a
// view of self (expected finding: view.outside_storage).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_expand(const kgb_tensor* self, kgb_int_list size, int implicit, kgb_tensor* out,
                               kgb_stream stream) {
  (void)implicit;
  (void)stream;
  const int64_t rank = size.count, leading = rank - self->rank;
  int64_t numel = 1;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t s = size.values[i] == -1 ? self->sizes[i - leading] : size.values[i];
    out->sizes[i] = s;
    numel *= s;
  }
  const int64_t elem = kgb_dtype_size(self->dtype);
  char* copy = static_cast<char*>(malloc(static_cast<size_t>(numel > 0 ? numel * elem : elem)));  // never freed: the view must outlive the call
  int64_t stride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    out->strides[i] = stride;
    stride *= out->sizes[i];
  }
  for (int64_t linear = 0; linear < numel; ++linear) {
    int64_t rest = linear, from = 0;
    for (int64_t i = rank - 1; i >= 0; --i) {
      const int64_t index = rest % out->sizes[i];
      rest /= out->sizes[i];
      const int64_t j = i - leading;
      if (j >= 0 && self->sizes[j] != 1) from += index * self->strides[j];
    }
    memcpy(copy + linear * elem, static_cast<const char*>(self->data) + from * elem, static_cast<size_t>(elem));
  }
  out->rank = static_cast<int32_t>(rank);
  out->data = copy;
  out->storage_offset = 0;
  return KGB_OK;
}
