// aten/zero_, plain OpenCL baseline: one work-item per element of the view
// storing a zero of the element's width (fill_common.h).
#include "fill_common.h"
#include "kgb_entries/aten/zero_.h"

namespace kgb::opencl::plain {
namespace {

int zero(kgb_tensor* self, kgb_stream stream) {
  unsigned char bytes[16];
  if (!scalar_bytes(int_scalar(0), self->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill_view(self, bytes, nullptr, stream);
}

}  // namespace
KGB_BASELINE(aten_zero_, kKind, zero);
}  // namespace kgb::opencl::plain
