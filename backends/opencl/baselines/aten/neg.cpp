// aten/neg, plain OpenCL baseline: one work-item per output element, out = -self
// (plain_pointwise.h).
#include "../plain_pointwise.h"
#include "kgb_entries/aten/neg.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
C op(C a, C b, C alpha) { return -a; }
)CLC";

int neg(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, nullptr, nullptr, nullptr);
}

}  // namespace
KGB_BASELINE(aten_neg, kKind, neg);
}  // namespace kgb::opencl::plain
