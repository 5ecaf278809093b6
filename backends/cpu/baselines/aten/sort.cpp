// Baseline for aten/sort: ATen's sort.values on views of the harness buffers.
#include <ATen/ATen.h>

#include <exception>

#include "kgb_baseline.h"

namespace {

at::ScalarType aten_dtype(int32_t dtype) {
  switch (dtype) {
    case KGB_F32: return at::kFloat;
    case KGB_F64: return at::kDouble;
    case KGB_F16: return at::kHalf;
    case KGB_BF16: return at::kBFloat16;
    case KGB_I32: return at::kInt;
    case KGB_I64: return at::kLong;
    default: return at::ScalarType::Undefined;
  }
}

// A non-owning ATen view with the kgb_tensor's sizes and element strides.
at::Tensor view_of(const kgb_tensor* t) {
  return at::from_blob(t->data, at::IntArrayRef(t->sizes, t->rank), at::IntArrayRef(t->strides, t->rank),
                       at::TensorOptions().dtype(aten_dtype(t->dtype)).device(at::kCPU));
}

int sort_via_aten(kgb_tensor* const* tensors, const kgb_scalar_value* scalars, kgb_stream) {
  if (aten_dtype(tensors[0]->dtype) == at::ScalarType::Undefined) return KGB_ERR_UNSUPPORTED;
  try {
    at::Tensor self = view_of(tensors[0]), values = view_of(tensors[3]), indices = view_of(tensors[4]);
    const int64_t dim = scalars[1].i;
    const bool descending = scalars[2].i != 0;
    if (values.is_contiguous() && indices.is_contiguous()) {
      at::sort_out(values, indices, self, dim, descending);
    } else {
      // Sort into dense tensors, then scatter into the strided views.
      auto [v, i] = at::sort(self, dim, descending);
      values.copy_(v);
      indices.copy_(i);
    }
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

}  // namespace

KGB_REGISTER_BASELINE("aten/sort", "aten", sort_via_aten);
