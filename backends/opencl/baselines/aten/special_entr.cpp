// aten/special_entr, plain OpenCL baseline: one work-item per output element,
// out = -x * ln(x) through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/special_entr.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
  if (isnan(x)) return x;
  if (x > (C)0) return -x * log(x);
  return x == (C)0 ? (C)0 : -(C)INFINITY;
}
)CLC");

int special_entr(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return unary::run(self, out, stream, kSource, {});
}

}  // namespace
KGB_BASELINE(aten_special_entr, kKind, special_entr);
}  // namespace kgb::opencl::plain
