// Baseline for aten/softmax: ATen's softmax.int_out on views of the harness buffers.
#include <ATen/ATen.h>

#include <exception>

#include "kgb_baseline.h"
#include "kgb_entries/aten/softmax.h"

namespace {

at::ScalarType aten_dtype(int32_t dtype) {
  switch (dtype) {
    case KGB_F32: return at::kFloat;
    case KGB_F64: return at::kDouble;
    case KGB_F16: return at::kHalf;
    case KGB_BF16: return at::kBFloat16;
    default: return at::ScalarType::Undefined;
  }
}

// A non-owning ATen view with the kgb_tensor's sizes and element strides.
at::Tensor view_of(const kgb_tensor* t) {
  return at::from_blob(t->data, at::IntArrayRef(t->sizes, t->rank), at::IntArrayRef(t->strides, t->rank),
                       at::TensorOptions().dtype(aten_dtype(t->dtype)).device(at::kCPU));
}

// A file of its own for f16: this libtorch has no CPU Half softmax kernel.
int softmax_via_aten(const kgb_tensor* self_t, int64_t dim, kgb_tensor* out_t, kgb_stream) {
  if (aten_dtype(self_t->dtype) == at::ScalarType::Undefined) return KGB_ERR_UNSUPPORTED;
  try {
    at::Tensor self = view_of(self_t), out = view_of(out_t);
    if (self.scalar_type() == at::kHalf) {
      // This libtorch has no CPU Half softmax kernel; compute in float and
      // round once to half, which is what PyTorch's own Half path does.
      out.copy_(at::softmax(self, dim, at::kFloat));
    } else if (out.is_contiguous()) {
      at::softmax_out(out, self, dim);
    } else {
      // softmax's out variant wants a dense result; compute, then scatter into the strided view.
      out.copy_(at::softmax(self, dim));
    }
  } catch (const std::exception&) {
    return KGB_ERR_INVALID;
  }
  return KGB_OK;
}

}  // namespace

KGB_BASELINE(aten_softmax, "aten", softmax_via_aten);
