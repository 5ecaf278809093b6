// aten/hardsigmoid, plain OpenCL baseline: one work-item per output element,
// out = min(max(x + 3, 0), 6) / 6 through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/hardsigmoid.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
  C y = x + (C)3;
  y = y < (C)0 ? (C)0 : y;  /* comparisons keep NaN */
  y = y > (C)6 ? (C)6 : y;
  return y / (C)6;
}
)CLC");

int hardsigmoid(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return unary::run(self, out, stream, kSource, {});
}

}  // namespace
KGB_BASELINE(aten_hardsigmoid, kKind, hardsigmoid);
}  // namespace kgb::opencl::plain
