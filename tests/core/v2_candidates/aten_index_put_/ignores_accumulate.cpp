// Wrong: always assigns, as if accumulate were false. Correct for every case
// without accumulate; with accumulate each indexed element ends up holding
// one of the values sent to it instead of its old value plus all of them
// (expected: value mismatches on the accumulate cases only).
// Compiled after index_put_walk.inc (the test puts it in front).
#include <string.h>

extern "C" int kgb_aten_index_put_(kgb_tensor* self, const kgb_tensor_list* indices, const kgb_tensor* values,
                                   int accumulate, kgb_stream stream) {
  (void)accumulate;
  (void)stream;
  const int64_t elem = kgb_dtype_size(self->dtype);
  return for_each_target(self, indices, values, [&](int64_t s, int64_t v) {
    memcpy(static_cast<char*>(self->data) + s * elem, static_cast<const char*>(values->data) + v * elem, static_cast<size_t>(elem));
  });
}
