// aten/floor, plain OpenCL baseline: one work-item per output element, out = floor(self) (the identity on integers)
// (plain_pointwise.h).
#include "../plain_pointwise.h"
#include "kgb_entries/aten/floor.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
#if KGB_DO == 4 || KGB_DO == 5 || KGB_DO == 6 || KGB_DO == 7
C op(C a, C b, C alpha) { return floor(a); }
#else
C op(C a, C b, C alpha) { return a; }
#endif
)CLC";

int floor(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, nullptr, nullptr, nullptr);
}

}  // namespace
KGB_BASELINE(aten_floor, kKind, floor);
}  // namespace kgb::opencl::plain
