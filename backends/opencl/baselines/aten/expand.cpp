// aten/expand, plain OpenCL baseline: ATen's expand geometry written out (a
// view: metadata only, nothing enqueued). The task is untimed; the baseline
// exists so that every platform can run every entry.
#include "../plain_common.h"
#include "kgb_entries/aten/expand.h"
#include "view_geometry.h"

namespace kgb::opencl::plain {
namespace {

int expand(const kgb_tensor* self, kgb_int_list size, int /*implicit*/, kgb_tensor* out, kgb_stream /*stream*/) {
  return expand_view(self, size.values, size.count, out);
}

}  // namespace
KGB_BASELINE(aten_expand, kKind, expand);
}  // namespace kgb::opencl::plain
