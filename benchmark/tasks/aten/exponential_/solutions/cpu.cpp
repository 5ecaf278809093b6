// aten/exponential_ on the CPU: self[i] = -log(u(seed, i)) / lambd.
//
// Counter-based: u comes from (seed, logical row-major index) through the
// splitmix64 finaliser, so every draw depends on nothing but its position and
// the seed, whatever the threads do. 24 random bits give u in (0, 1] for the
// float dtypes (computed in float, rounded once to f16/bf16), 53 bits for
// f64. The view is walked row by row (the innermost dim is a row), rows spread
// over OpenMP threads; a row-major self is one long row.
#include <math.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct F32 {
  using S = float;
  static S draw(uint64_t bits, float inv) { return -logf(static_cast<float>((bits >> 40) + 1) * 0x1.0p-24f) * inv; }
};
struct F16 {
  using S = uint16_t;
  static S draw(uint64_t bits, float inv) { return kgb_float_to_f16(F32::draw(bits, inv)); }
};
struct BF16 {
  using S = uint16_t;
  static S draw(uint64_t bits, float inv) { return kgb_float_to_bf16(F32::draw(bits, inv)); }
};
struct F64 {
  using S = double;
  static S draw(uint64_t bits, double inv) { return -log(static_cast<double>((bits >> 11) + 1) * 0x1.0p-53) * inv; }
};

template <class K, class Inv>
void fill(kgb_tensor* self, Inv inv, uint64_t key) {
  typename K::S* base = static_cast<typename K::S*>(self->data);
  const int rank = self->rank;
  if (rank == 0) {
    base[0] = K::draw(mix64(key ^ mix64(0)), inv);
    return;
  }
  // Fold a row-major (dense, increasing) layout into one long row.
  bool dense = true;
  int64_t expect = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (self->sizes[d] != 1 && self->strides[d] != expect) dense = false;
    expect *= self->sizes[d];
  }
  const int64_t numel = expect;
  if (numel == 0) return;
  if (dense) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < numel; ++i) base[i] = K::draw(mix64(key ^ mix64(static_cast<uint64_t>(i))), inv);
    return;
  }
  const int64_t len = self->sizes[rank - 1], step = self->strides[rank - 1], rows = numel / len;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0, rest = r;
    for (int d = rank - 2; d >= 0; --d) {
      off += (rest % self->sizes[d]) * self->strides[d];
      rest /= self->sizes[d];
    }
    typename K::S* row = base + off;
    const uint64_t first = static_cast<uint64_t>(r * len);
    for (int64_t j = 0; j < len; ++j) row[j * step] = K::draw(mix64(key ^ mix64(first + static_cast<uint64_t>(j))), inv);
  }
}

}  // namespace

extern "C" int kgb_aten_exponential_(kgb_tensor* self, double lambd, int64_t seed, kgb_stream stream) {
  (void)stream;
  if (!(lambd > 0)) return KGB_ERR_INVALID;
  const uint64_t key = mix64(static_cast<uint64_t>(seed));
  switch (self->dtype) {
    case KGB_F32: fill<F32>(self, static_cast<float>(1.0 / lambd), key); return KGB_OK;
    case KGB_F64: fill<F64>(self, 1.0 / lambd, key); return KGB_OK;
    case KGB_F16: fill<F16>(self, static_cast<float>(1.0 / lambd), key); return KGB_OK;
    case KGB_BF16: fill<BF16>(self, static_cast<float>(1.0 / lambd), key); return KGB_OK;
    default: return KGB_ERR_UNSUPPORTED;
  }
}
