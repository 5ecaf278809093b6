// aten/expand, plain OpenCL baseline: ATen's expand geometry written out (a
// view: metadata only, nothing enqueued). The task is untimed; the baseline
// exists so that every platform can run every entry.
#include "../plain_common.h"
#include "kgb_entries/aten/expand.h"

namespace kgb::opencl::plain {
namespace {

int expand(const kgb_tensor* self, kgb_int_list size, int /*implicit*/, kgb_tensor* out, kgb_stream /*stream*/) {
  const int64_t rank = size.count, self_rank = self->rank;
  if (rank < self_rank || rank > KGB_MAX_RANK) return KGB_ERR_INVALID;
  kgb_tensor view = *out;
  view.rank = static_cast<int32_t>(rank);
  // From the innermost dim, as ATen's inferExpandGeometry walks them.
  for (int64_t i = rank - 1; i >= 0; --i) {
    const int64_t j = i - (rank - self_rank);  // self's matching dim; < 0 for a new leading dim
    int64_t dim_size = j >= 0 ? self->sizes[j] : 1;
    int64_t stride = j >= 0 ? self->strides[j] : (i + 1 < rank ? view.sizes[i + 1] * view.strides[i + 1] : 1);
    const int64_t target = size.values[i] == -1 && j >= 0 ? dim_size : size.values[i];
    if (target < 0) return KGB_ERR_INVALID;
    if (target != dim_size) {
      if (dim_size != 1) return KGB_ERR_INVALID;
      dim_size = target;
      stride = 0;
    }
    view.sizes[i] = dim_size;
    view.strides[i] = stride;
  }
  view.data = self->data;
  view.storage_offset = self->storage_offset;
  view.flags = self->flags;
  *out = view;
  return KGB_OK;
}

}  // namespace
KGB_BASELINE(aten_expand, kKind, expand);
}  // namespace kgb::opencl::plain
