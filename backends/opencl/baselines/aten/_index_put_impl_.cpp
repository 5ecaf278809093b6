// aten/_index_put_impl_, plain OpenCL baseline: the index_put_ baseline
// (index_put_.cpp), as in ATen, where index_put_ is _index_put_impl_ with
// unsafe = false; unsafe does not change the result of valid indices.
#include "kgb_baseline.h"
#include "kgb_entries/aten/_index_put_impl_.h"
#include "../plain_common.h"

namespace kgb::opencl::plain {
namespace {

int index_put_impl(kgb_tensor* self, const kgb_tensor_list* indices, const kgb_tensor* values, int accumulate,
                   int unsafe, kgb_stream stream) {
  (void)unsafe;
  const BaselineEntry* index_put = find_baseline("aten/index_put_");
  if (!index_put) return KGB_ERR_UNSUPPORTED;
  kgb_arg args[4];
  args[0].t = self;
  args[1].l = const_cast<kgb_tensor_list*>(indices);
  args[2].t = const_cast<kgb_tensor*>(values);
  args[3].i = accumulate;
  return index_put->invoke(args, 4, stream);
}

}  // namespace
KGB_BASELINE(aten__index_put_impl_, kKind, index_put_impl);
}  // namespace kgb::opencl::plain
