// aten/heaviside, plain OpenCL baseline: one work-item per output element with
// the broadcast strides of both inputs (plain_pointwise.h).
#include "../plain_pointwise.h"
#include "kgb_entries/aten/heaviside.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
C op(C a, C b, C alpha) { return a == 0 ? b : (C)(a > 0); }
)CLC";

int heaviside(const kgb_tensor* self, const kgb_tensor* values, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, values, nullptr, nullptr);
}

}  // namespace
KGB_BASELINE(aten_heaviside, kKind, heaviside);
}  // namespace kgb::opencl::plain
