// aten/unsqueeze, plain OpenCL baseline: ATen's inferUnsqueezeGeometry
// written out (a view: metadata only, nothing enqueued). The task is untimed;
// the baseline exists so that every platform can run every entry.
#include "../plain_common.h"
#include "kgb_entries/aten/unsqueeze.h"

namespace kgb::opencl::plain {
namespace {

int unsqueeze(const kgb_tensor* self, int64_t dim, kgb_tensor* out, kgb_stream /*stream*/) {
  const int32_t rank = self->rank;
  if (rank >= KGB_MAX_RANK || dim < -(rank + 1) || dim > rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank + 1;
  kgb_tensor view = *out;
  view.rank = rank + 1;
  for (int32_t d = 0; d < rank; ++d) {  // self's dims, shifted past the new one
    const int32_t to = d < dim ? d : d + 1;
    view.sizes[to] = self->sizes[d];
    view.strides[to] = self->strides[d];
  }
  view.sizes[dim] = 1;
  view.strides[dim] = dim < rank ? self->sizes[dim] * self->strides[dim] : 1;
  view.data = self->data;
  view.storage_offset = self->storage_offset;
  view.flags = self->flags;
  *out = view;
  return KGB_OK;
}

}  // namespace
KGB_BASELINE(aten_unsqueeze, kKind, unsqueeze);
}  // namespace kgb::opencl::plain
