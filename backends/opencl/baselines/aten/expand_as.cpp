// aten/expand_as, plain OpenCL baseline: self.expand(other.sizes()) with
// ATen's expand geometry (a view: metadata only, nothing enqueued). The task
// is untimed; the baseline exists so that every platform can run every entry.
#include "../plain_common.h"
#include "kgb_entries/aten/expand_as.h"
#include "view_geometry.h"

namespace kgb::opencl::plain {
namespace {

int expand_as(const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out, kgb_stream /*stream*/) {
  return expand_view(self, other->sizes, other->rank, out);
}

}  // namespace
KGB_BASELINE(aten_expand_as, kKind, expand_as);
}  // namespace kgb::opencl::plain
