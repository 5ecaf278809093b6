// aten/prelu, plain OpenCL baseline: one work-item per output element; the
// weight is viewed as [C, 1, ..., 1] so that it broadcasts along dim 1
// (promoting_binary.h does the element conversions).
#include "kgb_entries/aten/prelu.h"
#include "promoting_binary.h"

namespace kgb::opencl::plain {
namespace {

const char kOp[] = "typedef C R;\nR op(C x, C w) { return x > (C)0 ? x : w * x; }\n";

int prelu(const kgb_tensor* self, const kgb_tensor* weight, kgb_tensor* out, kgb_stream stream) {
  if (!binary::is_float(self->dtype) || weight->dtype != self->dtype || weight->rank != 1) return KGB_ERR_UNSUPPORTED;
  kgb_tensor w = *weight;
  if (weight->sizes[0] != 1) {
    if (self->rank < 2) return KGB_ERR_INVALID;
    w.rank = self->rank - 1;
    for (int d = 1; d < w.rank; ++d) w.sizes[d] = 1, w.strides[d] = 0;
  }
  return binary::run(stream, kOp, binary::of(self), binary::of(&w), out, self->dtype, 0);
}

}  // namespace
KGB_BASELINE(aten_prelu, kKind, prelu);
}  // namespace kgb::opencl::plain
