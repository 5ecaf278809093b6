// Wrong: accumulates like a gather-add-scatter that assumes distinct targets.
// Every old value is read first, then each position writes old + its value;
// where an element is indexed several times only the last write survives, so
// all but one of the values sent to it are lost (expected: value mismatches
// on the accumulate cases with duplicate targets; the others pass).
// Compiled after index_put_walk.inc (the test puts it in front).
#include <string.h>

#include <vector>

#include "kgb_half.h"

template <typename E, typename Add>
int gather_add_scatter(kgb_tensor* self, const kgb_tensor_list* indices, const kgb_tensor* values, Add add) {
  E* s = static_cast<E*>(self->data);
  const E* v = static_cast<const E*>(values->data);
  std::vector<E> old;
  int r = for_each_target(self, indices, values, [&](int64_t so, int64_t) { old.push_back(s[so]); });
  size_t i = 0;
  if (r == KGB_OK) r = for_each_target(self, indices, values, [&](int64_t so, int64_t vo) { s[so] = add(old[i++], v[vo]); });
  return r;
}

extern "C" int kgb_aten_index_put_(kgb_tensor* self, const kgb_tensor_list* indices, const kgb_tensor* values,
                                   int accumulate, kgb_stream stream) {
  (void)stream;
  if (!accumulate) {
    const int64_t elem = kgb_dtype_size(self->dtype);
    return for_each_target(self, indices, values, [&](int64_t s, int64_t v) {
      memcpy(static_cast<char*>(self->data) + s * elem, static_cast<const char*>(values->data) + v * elem, static_cast<size_t>(elem));
    });
  }
  switch (self->dtype) {
    case KGB_F32: return gather_add_scatter<float>(self, indices, values, [](float a, float b) { return a + b; });
    case KGB_F64: return gather_add_scatter<double>(self, indices, values, [](double a, double b) { return a + b; });
    case KGB_I64: return gather_add_scatter<int64_t>(self, indices, values, [](int64_t a, int64_t b) { return a + b; });
    case KGB_BOOL: return gather_add_scatter<uint8_t>(self, indices, values, [](uint8_t a, uint8_t b) { return static_cast<uint8_t>((a | b) != 0); });
    case KGB_F16:
      return gather_add_scatter<uint16_t>(self, indices, values, [](uint16_t a, uint16_t b) { return kgb_float_to_f16(kgb_f16_to_float(a) + kgb_f16_to_float(b)); });
    case KGB_BF16:
      return gather_add_scatter<uint16_t>(self, indices, values, [](uint16_t a, uint16_t b) { return kgb_float_to_bf16(kgb_bf16_to_float(a) + kgb_bf16_to_float(b)); });
    default: return KGB_ERR_UNSUPPORTED;
  }
}
