// aten/t, plain OpenCL baseline: ATen's t() geometry written out (a view:
// metadata only, nothing enqueued). The task is untimed; the baseline exists
// so that every platform can run every entry.
#include "../plain_common.h"
#include "kgb_entries/aten/t.h"

namespace kgb::opencl::plain {
namespace {

int t(const kgb_tensor* self, kgb_tensor* out, kgb_stream /*stream*/) {
  if (self->rank > 2) return KGB_ERR_INVALID;
  kgb_tensor view = *out;
  view.rank = self->rank;
  for (int32_t d = 0; d < self->rank; ++d) {  // transpose(0, 1) for a matrix, self's view below rank 2
    view.sizes[d] = self->sizes[self->rank - 1 - d];
    view.strides[d] = self->strides[self->rank - 1 - d];
  }
  view.data = self->data;
  view.storage_offset = self->storage_offset;
  view.flags = self->flags;
  *out = view;
  return KGB_OK;
}

}  // namespace
KGB_BASELINE(aten_t, kKind, t);
}  // namespace kgb::opencl::plain
