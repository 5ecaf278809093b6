// aten/bitwise_not, plain OpenCL baseline: one work-item per output element, out = ~self (logical not on bool)
// (plain_pointwise.h).
#include "../plain_pointwise.h"
#include "kgb_entries/aten/bitwise_not.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
#if KGB_DO == 0
C op(C a, C b, C alpha) { return !a; }
#else
C op(C a, C b, C alpha) { return ~a; }
#endif
)CLC";

int bitwise_not(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, nullptr, nullptr, nullptr);
}

}  // namespace
KGB_BASELINE(aten_bitwise_not, kKind, bitwise_not);
}  // namespace kgb::opencl::plain
