// aten/new_empty_strided, plain OpenCL baseline: the result described over the
// harness's storage buffer (kgb_allocation_view.h); nothing is enqueued. The
// task is untimed; the baseline exists so that every platform can run every
// entry.
#include "../plain_common.h"
#include "kgb_allocation_view.h"
#include "kgb_entries/aten/new_empty_strided.h"

namespace kgb::opencl::plain {
namespace {

int allocate(const kgb_tensor* /*self*/, kgb_int_list size, kgb_int_list stride, const int* /*dtype*/,
                  const kgb_tensor* storage, kgb_tensor* out, kgb_stream /*stream*/) {
  return describe_allocation(size, stride, storage, out);
}

}  // namespace
KGB_BASELINE(aten_new_empty_strided, kKind, allocate);
}  // namespace kgb::opencl::plain
