// aten/div_, plain OpenCL baseline: self /= other in place (true division),
// one work-item per element of self, other broadcast to it in its own dtype
// (plain_pointwise.h with self as the output).
#include "../plain_pointwise.h"
#include "kgb_entries/aten/div_.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
C op(C a, C b, C alpha) { return a / b; }
)CLC";

int div_(kgb_tensor* self, const kgb_tensor* other, kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  return run_pointwise(stream, kOp, self, self, other, nullptr, nullptr);
}

int div__scalar(kgb_tensor* self, kgb_scalar other, kgb_stream stream) {
  if (self->dtype != KGB_F32 && self->dtype != KGB_F64 && self->dtype != KGB_F16 && self->dtype != KGB_BF16)
    return KGB_ERR_UNSUPPORTED;
  return run_pointwise(stream, kOp, self, self, nullptr, &other, nullptr);
}

}  // namespace
KGB_BASELINE(aten_div_, kKind, div_);
KGB_BASELINE(aten_div__Scalar, kKind, div__scalar);
}  // namespace kgb::opencl::plain
