// aten/_softmax, plain OpenCL baseline: one work-item per slice, three passes
// (softmax_plain.h); out in self's dtype, or f32 from f16 with half_to_float.
#include "kgb_entries/aten/_softmax.h"
#include "softmax_plain.h"

namespace kgb::opencl::plain {
namespace {

int softmax(const kgb_tensor* self, int64_t dim, int half_to_float, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  if (half_to_float ? (self->dtype != KGB_F16 || out->dtype != KGB_F32) : self->dtype != out->dtype)
    return KGB_ERR_UNSUPPORTED;
  return softmax_slices(self, dim, out, stream);
}

}  // namespace
KGB_BASELINE(aten__softmax, kKind, softmax);
}  // namespace kgb::opencl::plain
