// Baseline for aten/empty_strided: libtorch allocates the tensor and its
// geometry (sizes, strides, storage offset) is described over the harness's
// storage buffer, which stands in for the allocation (fresh_tensor_view.h;
// the generic dispatcher call cannot: the buffer has no counterpart in
// ATen's schema). Also the oracle of the cross-check.
#include <ATen/ATen.h>

#include <exception>

#include "aten_dispatch.h"
#include "fresh_tensor_view.h"
#include "kgb_baseline.h"
#include "kgb_entries/aten/empty_strided.h"

namespace {

int empty_strided_aten(kgb_int_list size, kgb_int_list stride, const int* /*dtype*/, const kgb_tensor* storage, kgb_tensor* out,
                        kgb_stream /*stream*/) {
  try {
    const at::IntArrayRef sizes(size.values, static_cast<size_t>(size.count));
    const at::IntArrayRef strides(stride.values, static_cast<size_t>(stride.count));
    const at::TensorOptions options = at::TensorOptions().dtype(kgb::aten_dispatch::scalar_type_of(out->dtype));
    const at::Tensor fresh = at::empty_strided(sizes, strides, options);
    return kgb::cpu_aten::describe_fresh(fresh, storage, out);
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
}

}  // namespace

KGB_BASELINE(aten_empty_strided, "aten", empty_strided_aten);
