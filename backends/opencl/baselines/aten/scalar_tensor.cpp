// aten/scalar_tensor, plain OpenCL baseline: the value converted on the
// host, one work-item storing the element (fill_common.h).
#include "fill_common.h"
#include "kgb_entries/aten/scalar_tensor.h"

namespace kgb::opencl::plain {
namespace {

int scalar_tensor(kgb_scalar s, const int* /*dtype*/, kgb_tensor* out, kgb_stream stream) {
  unsigned char bytes[16];
  if (!scalar_bytes(s, out->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill_view(out, bytes, nullptr, stream);
}

}  // namespace
KGB_BASELINE(aten_scalar_tensor, kKind, scalar_tensor);
}  // namespace kgb::opencl::plain
