// aten/log10, plain OpenCL baseline: one work-item per output element,
// out = log10(x) through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/log10.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
  return log10(x);
}
)CLC");

int log10(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  return unary::run(self, out, stream, kSource, {});
}

}  // namespace
KGB_BASELINE(aten_log10, kKind, log10);
}  // namespace kgb::opencl::plain
