// aten/as_strided, plain OpenCL baseline: the given sizes and strides at the
// given storage offset (from the start of self's allocation; None keeps
// self's). A view: metadata only, nothing enqueued. The task is untimed; the
// baseline exists so that every platform can run every entry.
#include "../plain_common.h"
#include "kgb_entries/aten/as_strided.h"

namespace kgb::opencl::plain {
namespace {

int as_strided(const kgb_tensor* self, kgb_int_list size, kgb_int_list stride, const int64_t* storage_offset, kgb_tensor* out,
               kgb_stream /*stream*/) {
  if (size.count != stride.count || size.count > KGB_MAX_RANK) return KGB_ERR_INVALID;
  const int64_t offset = storage_offset ? *storage_offset : self->storage_offset;
  if (offset < 0) return KGB_ERR_INVALID;
  kgb_tensor view = *out;
  view.rank = static_cast<int32_t>(size.count);
  for (int64_t d = 0; d < size.count; ++d) {
    if (size.values[d] < 0 || stride.values[d] < 0) return KGB_ERR_INVALID;
    view.sizes[d] = size.values[d];
    view.strides[d] = stride.values[d];
  }
  // Interior addresses of an OpenCL buffer resolve like any tensor pointer.
  view.data = static_cast<char*>(self->data) + (offset - self->storage_offset) * kgb_dtype_size(self->dtype);
  view.storage_offset = offset;
  view.flags = self->flags;
  *out = view;
  return KGB_OK;
}

}  // namespace
KGB_BASELINE(aten_as_strided, kKind, as_strided);
}  // namespace kgb::opencl::plain
