// aten/fill_, plain OpenCL baseline: the value converted on the host, one
// work-item per element of the view (fill_common.h).
#include "fill_common.h"
#include "kgb_entries/aten/fill_.h"

namespace kgb::opencl::plain {
namespace {

int fill_scalar(kgb_tensor* self, kgb_scalar value, kgb_stream stream) {
  unsigned char bytes[16];
  if (!scalar_bytes(value, self->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill_view(self, bytes, nullptr, stream);
}

int fill_tensor(kgb_tensor* self, const kgb_tensor* value, kgb_stream stream) {
  if (value->dtype != self->dtype || kgb_numel(value) != 1) return KGB_ERR_INVALID;
  return fill_view(self, nullptr, value, stream);
}

}  // namespace
KGB_BASELINE(aten_fill_, kKind, fill_scalar);
KGB_BASELINE(aten_fill__Tensor, kKind, fill_tensor);
}  // namespace kgb::opencl::plain
