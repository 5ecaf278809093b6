// aten/mish, plain OpenCL baseline: one work-item per output element,
// out = x * tanh(log1p(exp(x))) through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/mish.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
  return x * tanh(log1p(exp(x)));
}
)CLC");

int mish(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return unary::run(self, out, stream, kSource, {});
}

}  // namespace
KGB_BASELINE(aten_mish, kKind, mish);
}  // namespace kgb::opencl::plain
