// aten/rsqrt, plain OpenCL baseline: one work-item per output element,
// out = 1 / sqrt(x) through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/rsqrt.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
  return rsqrt(x);
}
)CLC");

int rsqrt(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return unary::run(self, out, stream, kSource, {});
}

}  // namespace
KGB_BASELINE(aten_rsqrt, kKind, rsqrt);
}  // namespace kgb::opencl::plain
