// aten/select (select.int), plain OpenCL baseline: ATen's select geometry
// written out (a view: metadata only, nothing enqueued). The task is
// untimed; the baseline exists so that every platform can run every entry.
#include "../plain_common.h"
#include "kgb_entries/aten/select.h"

namespace kgb::opencl::plain {
namespace {

int select(const kgb_tensor* self, int64_t dim, int64_t index, kgb_tensor* out, kgb_stream /*stream*/) {
  const int32_t rank = self->rank;
  if (rank == 0 || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  dim = normalise_dim(dim, rank);
  const int64_t size = self->sizes[dim];
  if (index < -size || index >= size) return KGB_ERR_INVALID;
  if (index < 0) index += size;
  kgb_tensor view = *out;
  view.rank = rank - 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (d == dim) continue;
    const int32_t to = d < dim ? d : d - 1;
    view.sizes[to] = self->sizes[d];
    view.strides[to] = self->strides[d];
  }
  // Interior addresses of an OpenCL tensor resolve like any other.
  view.data = static_cast<char*>(self->data) + index * self->strides[dim] * kgb_dtype_size(self->dtype);
  view.storage_offset = self->storage_offset + index * self->strides[dim];
  view.flags = self->flags;
  *out = view;
  return KGB_OK;
}

}  // namespace
KGB_BASELINE(aten_select, kKind, select);
}  // namespace kgb::opencl::plain
