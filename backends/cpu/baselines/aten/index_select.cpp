// Baseline for aten/index_select: ATen's index_select.out on views of the
// harness buffers.
#include <ATen/ATen.h>

#include <exception>

#include "kgb_baseline.h"

namespace {

at::ScalarType aten_dtype(int32_t dtype) {
  switch (dtype) {
    case KGB_BOOL: return at::kBool;
    case KGB_I8: return at::kChar;
    case KGB_I32: return at::kInt;
    case KGB_I64: return at::kLong;
    case KGB_F16: return at::kHalf;
    case KGB_BF16: return at::kBFloat16;
    case KGB_F32: return at::kFloat;
    case KGB_F64: return at::kDouble;
    default: return at::ScalarType::Undefined;
  }
}

// A non-owning ATen view with the kgb_tensor's sizes and element strides.
at::Tensor view_of(const kgb_tensor* t) {
  return at::from_blob(t->data, at::IntArrayRef(t->sizes, t->rank), at::IntArrayRef(t->strides, t->rank),
                       at::TensorOptions().dtype(aten_dtype(t->dtype)).device(at::kCPU));
}

int index_select_via_aten(kgb_tensor* const* tensors, const kgb_scalar_value* scalars, kgb_stream) {
  if (aten_dtype(tensors[0]->dtype) == at::ScalarType::Undefined) return KGB_ERR_UNSUPPORTED;
  try {
    at::Tensor self = view_of(tensors[0]), index = view_of(tensors[2]), out = view_of(tensors[3]);
    const int64_t dim = scalars[1].i;
    if (out.is_contiguous()) {
      at::index_select_out(out, self, dim, index);
    } else {
      // The out variant expects a dense result; gather, then scatter into the strided view.
      out.copy_(at::index_select(self, dim, index));
    }
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

}  // namespace

KGB_REGISTER_BASELINE("aten/index_select", "aten", index_select_via_aten);
