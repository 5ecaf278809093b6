// aten/fmax, plain OpenCL baseline: one work-item per output element with the
// broadcast strides of both inputs, each in its own dtype (plain_pointwise.h);
// OpenCL's fmax has C's NaN rule.
#include "../plain_pointwise.h"
#include "kgb_entries/aten/fmax.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
#if KGB_DO == 4 || KGB_DO == 5 || KGB_DO == 6 || KGB_DO == 7
C op(C a, C b, C alpha) { return fmax(a, b); }
#else
C op(C a, C b, C alpha) { return a > b ? a : b; }
#endif
)CLC";

int fmax(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, other, nullptr, nullptr);
}

}  // namespace
KGB_BASELINE(aten_fmax, kKind, fmax);
}  // namespace kgb::opencl::plain
