// aten/softmax, plain OpenCL baseline: one work-item per slice, three passes
// (softmax_plain.h).
#include "kgb_entries/aten/softmax.h"
#include "softmax_plain.h"

namespace kgb::opencl::plain {
namespace {

int softmax(const kgb_tensor* self, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  if (out->dtype != self->dtype) return KGB_ERR_UNSUPPORTED;
  return softmax_slices(self, dim, out, stream);
}

}  // namespace
KGB_BASELINE(aten_softmax, kKind, softmax);
}  // namespace kgb::opencl::plain
