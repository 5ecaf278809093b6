// aten/logit, plain OpenCL baseline: one work-item per output element,
// out = log(z / (1 - z)), z = clamp(x, eps, 1 - eps) when eps is given through the strided offsets of out and self.
#include "unary_plain.h"
#include "kgb_entries/aten/logit.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = unary::source(R"CLC(

C op(C x, long k, R p0, R p1) {
  (void)k; (void)p0; (void)p1;
  if (k) x = x < p0 ? p0 : (x > p1 ? p1 : x);
  return log(x / ((C)1 - x));
}
)CLC");

int logit(const kgb_tensor* self, const double* eps, kgb_tensor* out, kgb_stream stream) {
  // k = 1: clamp to [p0, p1] = [eps, 1 - eps], the upper bound rounded as the kernel's type.
  unary::OpScalars s;
  if (eps) {
    s.k = 1;
    s.p0 = out->dtype == KGB_F64 ? *eps : static_cast<double>(static_cast<float>(*eps));
    s.p1 = out->dtype == KGB_F64 ? 1.0 - *eps : static_cast<double>(1.0f - static_cast<float>(*eps));
  }
  return unary::run(self, out, stream, kSource, s);
}

}  // namespace
KGB_BASELINE(aten_logit, kKind, logit);
}  // namespace kgb::opencl::plain
