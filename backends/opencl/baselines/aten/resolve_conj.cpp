// aten/resolve_conj, plain OpenCL baseline: self when it has no conj bit,
// else conj(stored) (and negated with a neg bit too) per element: the sign
// bit of the imaginary part flipped (of the real part only with both bits).
#include "kgb_entries/aten/resolve_conj.h"
#include "resolve_flags.h"

namespace kgb::opencl::plain {
namespace {

int resolve_conj(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  const bool neg = (self->flags & KGB_TENSOR_NEG) != 0;
  const uint64_t sign = 0x8000000000000000ull;
  if (self->dtype == KGB_C64) {
    const uint64_t mask = neg ? 0x80000000ull : sign;
    return resolve_flags(self, out, KGB_TENSOR_CONJ, &mask, false, stream);
  }
  const uint64_t mask[2] = {neg ? sign : 0, neg ? 0 : sign};  // c128: re, im
  return resolve_flags(self, out, KGB_TENSOR_CONJ, mask, false, stream);
}

}  // namespace
KGB_BASELINE(aten_resolve_conj, kKind, resolve_conj);
}  // namespace kgb::opencl::plain
