// aten/cosh, plain OpenCL baseline: one work-item per output element,
// out = cosh(x) through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/cosh.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
  return cosh(x);
}
)CLC");

int cosh(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return unary::run(self, out, stream, kSource, {});
}

}  // namespace
KGB_BASELINE(aten_cosh, kKind, cosh);
}  // namespace kgb::opencl::plain
