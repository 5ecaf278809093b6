// aten/ones_like, plain OpenCL baseline: one work-item per element of out
// storing the bytes of 1 in out's dtype (fill_common.h).
#include "fill_common.h"
#include "kgb_entries/aten/ones_like.h"

namespace kgb::opencl::plain {
namespace {

int ones_like(const kgb_tensor* /*self*/, const int* /*dtype*/, kgb_tensor* out, kgb_stream stream) {
  unsigned char bytes[16];
  if (!scalar_bytes(int_scalar(1), out->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill_view(out, bytes, nullptr, stream);
}

}  // namespace
KGB_BASELINE(aten_ones_like, kKind, ones_like);
}  // namespace kgb::opencl::plain
