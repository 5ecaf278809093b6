// aten/select on the CPU: the result is a view, so the entry only describes it.
// dim and index wrap from the end; the dim is dropped and the first element
// moves index * stride elements along it (data and storage_offset together).
#include <stdint.h>

#include "kgb_kernel.h"

extern "C" int kgb_aten_select(const kgb_tensor* self, int64_t dim, int64_t index, kgb_tensor* out,
                               kgb_stream stream) {
  (void)stream;
  const int32_t rank = self->rank;
  if (rank < 1 || rank > KGB_MAX_RANK || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int64_t size = self->sizes[dim];
  if (index < -size || index >= size) return KGB_ERR_INVALID;
  if (index < 0) index += size;
  const int64_t step = index * self->strides[dim];  // elements from self's first element
  for (int32_t d = 0, to = 0; d < rank; ++d) {
    if (d == dim) continue;
    out->sizes[to] = self->sizes[d];
    out->strides[to] = self->strides[d];
    ++to;
  }
  out->rank = rank - 1;
  out->data = (char*)self->data + step * kgb_dtype_size(self->dtype);
  out->storage_offset = self->storage_offset + step;
  out->flags = self->flags;
  return KGB_OK;
}
