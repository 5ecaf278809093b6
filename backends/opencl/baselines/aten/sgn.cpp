// aten/sgn, plain OpenCL baseline: one work-item per output element,
// out = sgn(x) through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/sgn.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
#if KGB_OUT == 8 || KGB_OUT == 9
  if (x.x == 0 && x.y == 0) return (C)(0);  /* sgn(0) = 0 */
  return x / hypot(x.x, x.y);               /* z / |z| */
#else
  return (C)(((C)0 < x) - (x < (C)0));      /* +-0 and NaN give 0 */
#endif
}
)CLC");

int sgn(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return unary::run(self, out, stream, kSource, {});
}

}  // namespace
KGB_BASELINE(aten_sgn, kKind, sgn);
}  // namespace kgb::opencl::plain
