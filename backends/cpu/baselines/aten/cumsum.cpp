// Baseline for aten/cumsum: ATen's cumsum.out (dtype = input dtype) on views of
// the harness buffers.
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

int cumsum_via_aten(kgb_tensor* const* tensors, const kgb_scalar_value* scalars, kgb_stream) {
  if (aten_dtype(tensors[0]->dtype) == at::ScalarType::Undefined) return KGB_ERR_UNSUPPORTED;
  try {
    at::Tensor self = view_of(tensors[0]), out = view_of(tensors[2]);
    const int64_t dim = scalars[1].i;
    if (self.scalar_type() == at::kHalf) {
      // This libtorch has no CPU Half cumsum kernel: accumulate through float.
      out.copy_(at::cumsum(self, dim, at::kFloat));
    } else if (out.is_contiguous()) {
      at::cumsum_out(out, self, dim, self.scalar_type());
    } else {
      out.copy_(at::cumsum(self, dim, self.scalar_type()));
    }
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

}  // namespace

KGB_REGISTER_BASELINE("aten/cumsum", "aten", cumsum_via_aten);
