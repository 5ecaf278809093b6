// Baseline for aten/mm: ATen's mm_out on views of the harness buffers (f32
// and f64 run ATen's own kernels as they are). libtorch 1.13 has no CPU kernel
// for f16 mm, and its bf16 kernel accumulates in bf16 (its results miss the
// task's tolerance, so the harness would refuse to compare against it): both
// are computed the way newer PyTorch does, inputs upcast to float, one float
// mm, rounded into out.
#include <ATen/ATen.h>

#include <exception>
#include <vector>

#include "kgb_baseline.h"
#include "kgb_entries/aten/mm.h"

namespace {

at::ScalarType scalar_type(int32_t dtype) {
  switch (dtype) {
    case KGB_F32: return at::kFloat;
    case KGB_F64: return at::kDouble;
    case KGB_F16: return at::kHalf;
    case KGB_BF16: return at::kBFloat16;
    default: return at::ScalarType::Undefined;
  }
}

// A tensor over the kgb view's storage (no copy).
at::Tensor wrap(const kgb_tensor* t) {
  const std::vector<int64_t> sizes(t->sizes, t->sizes + t->rank), strides(t->strides, t->strides + t->rank);
  return at::from_blob(t->data, sizes, strides, at::TensorOptions().dtype(scalar_type(t->dtype)));
}

int mm_aten(const kgb_tensor* self, const kgb_tensor* mat2, kgb_tensor* out, kgb_stream) {
  if (scalar_type(out->dtype) == at::ScalarType::Undefined) return KGB_ERR_UNSUPPORTED;
  try {
    at::Tensor o = wrap(out);
    if (out->dtype == KGB_F16 || out->dtype == KGB_BF16) {
      o.copy_(at::mm(wrap(self).to(at::kFloat), wrap(mat2).to(at::kFloat)));
    } else {
      at::mm_out(o, wrap(self), wrap(mat2));
    }
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(aten_mm, "aten", mm_aten);
