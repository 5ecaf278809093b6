// aten/add, plain OpenCL baseline: one work-item per output element with the
// broadcast strides of both inputs, each in its own dtype (plain_pointwise.h).
#include "../plain_pointwise.h"
#include "kgb_entries/aten/add.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = R"CLC(
C op(C a, C b, C alpha) { return a + alpha * b; }
)CLC";

int add(const kgb_tensor* self, const kgb_tensor* other, kgb_scalar alpha, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, other, nullptr, &alpha);
}

int add_scalar(const kgb_tensor* self, kgb_scalar other, kgb_scalar alpha, kgb_tensor* out, kgb_stream stream) {
  return run_pointwise(stream, kOp, out, self, nullptr, &other, &alpha);
}

}  // namespace
KGB_BASELINE(aten_add, kKind, add);
KGB_BASELINE(aten_add_Scalar, kKind, add_scalar);
}  // namespace kgb::opencl::plain
