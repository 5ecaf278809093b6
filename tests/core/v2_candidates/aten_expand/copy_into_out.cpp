// Wrong: treats expand as expand_copy into a pre-allocated output, writing the
// broadcast values through out->data and leaving out's descriptor as it came.
// A pure view's out has no storage (data is NULL): the copy has nowhere to go.
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_expand(const kgb_tensor* self, kgb_int_list size, int implicit, kgb_tensor* out,
                               kgb_stream stream) {
  (void)size;
  (void)implicit;
  (void)stream;
  const int64_t rank = out->rank, leading = out->rank - self->rank, elem = kgb_dtype_size(self->dtype);
  const int64_t numel = kgb_numel(out);
  for (int64_t linear = 0; linear < numel; ++linear) {
    int64_t rest = linear, from = 0, to = 0;
    for (int64_t i = rank - 1; i >= 0; --i) {
      const int64_t index = rest % out->sizes[i];
      rest /= out->sizes[i];
      to += index * out->strides[i];
      const int64_t j = i - leading;
      if (j >= 0 && self->sizes[j] != 1) from += index * self->strides[j];
    }
    memcpy(static_cast<char*>(out->data) + to * elem, static_cast<const char*>(self->data) + from * elem,
           static_cast<size_t>(elem));
  }
  return KGB_OK;
}
