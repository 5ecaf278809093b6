// aten/add_, plain OpenCL baseline: self += alpha * other in place, one
// work-item per element of self, other broadcast to it in its own dtype
// (plain_pointwise.h with self as the output).
#include "../plain_pointwise.h"
#include "kgb_entries/aten/add_.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
C op(C a, C b, C alpha) { return a + alpha * b; }
)CLC";

int add_(kgb_tensor* self, const kgb_tensor* other, kgb_scalar alpha, kgb_stream stream) {
  return run_pointwise(stream, kOp, self, self, other, nullptr, &alpha);
}

int add__scalar(kgb_tensor* self, kgb_scalar other, kgb_scalar alpha, kgb_stream stream) {
  return run_pointwise(stream, kOp, self, self, nullptr, &other, &alpha);
}

}  // namespace
KGB_BASELINE(aten_add_, kKind, add_);
KGB_BASELINE(aten_add__Scalar, kKind, add__scalar);
}  // namespace kgb::opencl::plain
