// aten/logaddexp2, plain OpenCL baseline: one work-item per output element,
// ATen's stable form (promoting_binary.h supplies the element conversions).
#include "kgb_entries/aten/logaddexp2.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
typedef C R;
R op(C x, C y) {
  if (isinf(x) && x == y) return x;
  return fmax(x, y) + log1p(exp2(-fabs(x - y))) / log((C)2);
}
)CLC";

int logaddexp2(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  if (!binary::is_float(out->dtype)) return KGB_ERR_UNSUPPORTED;
  return binary::run(stream, kOp, binary::of(self), binary::of(other), out, binary::result_type(binary::of(self), binary::of(other)), 0);
}

}  // namespace
KGB_BASELINE(aten_logaddexp2, kKind, logaddexp2);
}  // namespace kgb::opencl::plain
