// aten/square, plain OpenCL baseline: one work-item per output element, out = self * self (bool in, i64 out)
// (plain_pointwise.h).
#include "../plain_pointwise.h"
#include "kgb_entries/aten/square.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
C op(C a, C b, C alpha) { return a * a; }
)CLC";

int square(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, nullptr, nullptr, nullptr);
}

}  // namespace
KGB_BASELINE(aten_square, kKind, square);
}  // namespace kgb::opencl::plain
