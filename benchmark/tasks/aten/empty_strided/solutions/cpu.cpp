// aten/empty_strided on the CPU: an allocation. The harness's storage buffer
// stands in for the fresh allocation, so the entry writes only the
// descriptor: the result starts where the buffer starts and has the given
// sizes and strides (strides used as given, 0 included). No element is
// touched and nothing is enqueued.
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_empty_strided(kgb_int_list size, kgb_int_list stride, const int* dtype, const kgb_tensor* storage,
                                      kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  // The dtype (the one asked for, else f32) changes nothing in the descriptor.
  if (dtype && *dtype != out->dtype) return KGB_ERR_INVALID;
  if (size.count != stride.count || size.count > KGB_MAX_RANK) return KGB_ERR_INVALID;
  out->data = storage->data;
  out->storage_offset = storage->storage_offset;
  out->rank = static_cast<int32_t>(size.count);
  for (int64_t d = 0; d < size.count; ++d) {
    if (size.values[d] < 0 || stride.values[d] < 0) return KGB_ERR_INVALID;
    out->sizes[d] = size.values[d];
    out->strides[d] = stride.values[d];
  }
  out->flags = 0;
  return KGB_OK;
}
