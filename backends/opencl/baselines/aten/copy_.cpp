// aten/copy_, plain OpenCL baseline: one work-item per element of self, src
// broadcast by stride 0 and converted by the store (promoting_binary.h; the
// unused second operand is a bool Scalar, so the computation type is src's).
#include "kgb_entries/aten/copy_.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = "typedef C R;\nR op(C x, C y) { return x; }\n";

int copy(kgb_tensor* self, const kgb_tensor* src, int non_blocking, kgb_stream stream) {
  (void)non_blocking;
  const binary::Operand none = binary::of(kgb_scalar{});  // KGB_BOOL 0, never read
  return binary::run(stream, kOp, binary::of(src), none, self, src->dtype, 0);
}

}  // namespace
KGB_BASELINE(aten_copy_, kKind, copy);
}  // namespace kgb::opencl::plain
