// aten/narrow on the CPU: the result is a view, so the entries only describe
// it. narrow.Tensor reads its 0-dim start tensor (host memory here) first.
#include <stdint.h>

#include "kgb_kernel.h"

// The view: dim and start wrap from the end (start == size is allowed for an
// empty view at the end), sizes[dim] becomes length, strides stay, and the
// first element moves start * strides[dim] elements (data and storage_offset).
static int narrow_view(const kgb_tensor* self, int64_t dim, int64_t start, int64_t length, kgb_tensor* out) {
  const int32_t rank = self->rank;
  if (rank < 1 || rank > KGB_MAX_RANK || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int64_t size = self->sizes[dim];
  if (start < -size || start > size) return KGB_ERR_INVALID;
  if (start < 0) start += size;
  if (length < 0 || start + length > size) return KGB_ERR_INVALID;
  const int64_t step = start * self->strides[dim];
  for (int32_t d = 0; d < rank; ++d) {
    out->sizes[d] = d == dim ? length : self->sizes[d];
    out->strides[d] = self->strides[d];
  }
  out->rank = rank;
  out->data = (char*)self->data + step * kgb_dtype_size(self->dtype);
  out->storage_offset = self->storage_offset + step;
  out->flags = self->flags;
  return KGB_OK;
}

extern "C" int kgb_aten_narrow(const kgb_tensor* self, int64_t dim, int64_t start, int64_t length, kgb_tensor* out,
                               kgb_stream stream) {
  (void)stream;
  return narrow_view(self, dim, start, length, out);
}

extern "C" int kgb_aten_narrow_Tensor(const kgb_tensor* self, int64_t dim, const kgb_tensor* start, int64_t length,
                                      kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (start->rank != 0 || start->dtype != KGB_I64) return KGB_ERR_INVALID;
  return narrow_view(self, dim, *(const int64_t*)start->data, length, out);
}
