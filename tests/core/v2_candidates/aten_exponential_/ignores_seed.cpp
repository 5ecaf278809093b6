// Wrong: a good sampler with a fixed key; the seed is never read. Another
// seed gives bitwise the same output.
#include <math.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {
uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// Writes value(i) (a double) to logical row-major element i of self.
template <class F>
void write_all(kgb_tensor* self, F value) {
  int64_t n = 1;
  for (int d = 0; d < self->rank; ++d) n *= self->sizes[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0, rest = i;
    for (int d = self->rank - 1; d >= 0; --d) {
      off += (rest % self->sizes[d]) * self->strides[d];
      rest /= self->sizes[d];
    }
    const double v = value(i);
    switch (self->dtype) {
      case KGB_F32: static_cast<float*>(self->data)[off] = static_cast<float>(v); break;
      case KGB_F64: static_cast<double*>(self->data)[off] = v; break;
      case KGB_F16: static_cast<uint16_t*>(self->data)[off] = kgb_float_to_f16(static_cast<float>(v)); break;
      case KGB_BF16: static_cast<uint16_t*>(self->data)[off] = kgb_float_to_bf16(static_cast<float>(v)); break;
    }
  }
}
double uniform(uint64_t bits) { return static_cast<double>((bits >> 11) + 1) * 0x1.0p-53; }
}  // namespace

extern "C" int kgb_aten_exponential_(kgb_tensor* self, double lambd, int64_t seed, kgb_stream stream) {
  (void)seed;
  (void)stream;
  const uint64_t key = mix64(12345);
  write_all(self, [&](int64_t i) { return -log(uniform(mix64(key ^ mix64(static_cast<uint64_t>(i))))) / lambd; });
  return KGB_OK;
}
