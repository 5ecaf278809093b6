// aten/zeros, plain OpenCL baseline: one work-item per element of out
// storing a zero of the element's width (fill_common.h).
#include "fill_common.h"
#include "kgb_entries/aten/zeros.h"

namespace kgb::opencl::plain {
namespace {

int zeros(kgb_int_list /*size*/, const int* /*dtype*/, kgb_tensor* out, kgb_stream stream) {
  unsigned char bytes[16];
  if (!scalar_bytes(int_scalar(0), out->dtype, bytes)) return KGB_ERR_UNSUPPORTED;
  return fill_view(out, bytes, nullptr, stream);
}

}  // namespace
KGB_BASELINE(aten_zeros, kKind, zeros);
}  // namespace kgb::opencl::plain
