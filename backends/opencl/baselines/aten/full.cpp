// aten/full, plain OpenCL baseline: the value converted on the host, one
// work-item per element of out (fill_common.h).
#include "fill_common.h"
#include "kgb_entries/aten/full.h"

namespace kgb::opencl::plain {
namespace {

int full(kgb_int_list /*size*/, kgb_scalar fill_value, const int* /*dtype*/, kgb_tensor* out, kgb_stream stream) {
  unsigned char bytes[16];
  if (!scalar_bytes(fill_value, out->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill_view(out, bytes, nullptr, stream);
}

}  // namespace
KGB_BASELINE(aten_full, kKind, full);
}  // namespace kgb::opencl::plain
