// aten/resolve_neg, plain OpenCL baseline: self when it has no neg bit, else
// -(stored) (conjugated too with a conj bit) per element: sign bits flipped
// for floating and complex dtypes, two's complement for i64.
#include "kgb_entries/aten/resolve_neg.h"
#include "resolve_flags.h"

namespace kgb::opencl::plain {
namespace {

int resolve_neg(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  const bool conj = (self->flags & KGB_TENSOR_CONJ) != 0;
  const uint64_t sign = 0x8000000000000000ull;
  const uint16_t half = 0x8000;
  const uint32_t single = 0x80000000u;
  const uint64_t c64 = conj ? 0x80000000ull : 0x8000000080000000ull;
  const uint64_t c128[2] = {sign, conj ? 0 : sign};
  switch (self->dtype) {
    case KGB_F16: case KGB_BF16: return resolve_flags(self, out, KGB_TENSOR_NEG, &half, false, stream);
    case KGB_F32: return resolve_flags(self, out, KGB_TENSOR_NEG, &single, false, stream);
    case KGB_F64: return resolve_flags(self, out, KGB_TENSOR_NEG, &sign, false, stream);
    case KGB_I64: return resolve_flags(self, out, KGB_TENSOR_NEG, nullptr, true, stream);
    case KGB_C64: return resolve_flags(self, out, KGB_TENSOR_NEG, &c64, false, stream);
    case KGB_C128: return resolve_flags(self, out, KGB_TENSOR_NEG, c128, false, stream);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace
KGB_BASELINE(aten_resolve_neg, kKind, resolve_neg);
}  // namespace kgb::opencl::plain
