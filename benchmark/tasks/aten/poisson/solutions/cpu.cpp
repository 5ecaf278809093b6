// aten/poisson on the CPU: out[i] ~ Poisson(self[i]).
//
// Counter-based: element i (logical row-major index) draws its uniforms from
// its own splitmix64 stream, keyed by (seed, i), so the result depends on
// nothing but the seed, the rates and the position, whatever the threads do.
// Rates below 10 use inversion by sequential search (one uniform, about rate
// steps); larger rates use Hoermann's PTRS transformed rejection (two
// uniforms per try, about 1.1 tries), evaluated in double. Elements are split
// over OpenMP threads in blocks (the cost per element varies with the rate);
// row-major self and out skip the index unravelling.
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

// Uniform in (0, 1) from the element's stream.
inline double next_uniform(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (static_cast<double>(z >> 11) + 0.5) * 0x1.0p-53;
}

double draw(double rate, uint64_t state) {
  if (rate == 0) return 0;
  if (rate < 10) {
    const double u = next_uniform(state);
    double p = exp(-rate), f = p;
    int k = 0;
    while (u > f && k < 1000) {
      ++k;
      p *= rate / k;
      f += p;
    }
    return k;
  }
  const double slam = sqrt(rate), loglam = log(rate);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double log_inv_alpha = log(1.1239 + 1.1328 / (b - 3.4)), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = next_uniform(state) - 0.5, v = next_uniform(state);
    const double us = 0.5 - fabs(u);
    const double k = floor((2 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log_inv_alpha - log(a / (us * us) + b) <= -rate + k * loglam - lgamma(k + 1)) return k;
  }
}

struct F32 {
  using S = float;
  static double load(S v) { return v; }
  static S store(double k) { return static_cast<float>(k); }
};
struct F64 {
  using S = double;
  static double load(S v) { return v; }
  static S store(double k) { return k; }
};
struct F16 {
  using S = uint16_t;
  static double load(S v) { return kgb_f16_to_float(v); }
  static S store(double k) { return kgb_float_to_f16(static_cast<float>(k)); }  // counts < 2^24: exact in float
};
struct BF16 {
  using S = uint16_t;
  static double load(S v) { return kgb_bf16_to_float(v); }
  static S store(double k) { return kgb_float_to_bf16(static_cast<float>(k)); }
};

bool row_major(const kgb_tensor* t) {
  int64_t expect = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

template <class K>
void run(const kgb_tensor* self, kgb_tensor* out, uint64_t key) {
  using S = typename K::S;
  const S* in = static_cast<const S*>(self->data);
  S* o = static_cast<S*>(out->data);
  const int rank = out->rank;
  int64_t numel = 1;
  for (int d = 0; d < rank; ++d) numel *= out->sizes[d];
  if (numel == 0) return;
  if (row_major(self) && row_major(out)) {
#pragma omp parallel for schedule(dynamic, 4096)
    for (int64_t i = 0; i < numel; ++i) o[i] = K::store(draw(K::load(in[i]), key ^ mix64(static_cast<uint64_t>(i))));
    return;
  }
  // Rows of the innermost dim: one unravel per row.
  const int64_t len = rank > 0 ? out->sizes[rank - 1] : 1, rows = numel / len;
  const int64_t is = rank > 0 ? self->strides[rank - 1] : 0, os = rank > 0 ? out->strides[rank - 1] : 0;
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t io = 0, oo = 0, rest = r;
    for (int d = rank - 2; d >= 0; --d) {
      const int64_t c = rest % out->sizes[d];
      rest /= out->sizes[d];
      io += c * self->strides[d];
      oo += c * out->strides[d];
    }
    const uint64_t first = static_cast<uint64_t>(r * len);
    for (int64_t j = 0; j < len; ++j)
      o[oo + j * os] = K::store(draw(K::load(in[io + j * is]), key ^ mix64(first + static_cast<uint64_t>(j))));
  }
}

}  // namespace

extern "C" int kgb_aten_poisson(const kgb_tensor* self, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->dtype != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  const uint64_t key = mix64(static_cast<uint64_t>(seed));
  switch (out->dtype) {
    case KGB_F32: run<F32>(self, out, key); return KGB_OK;
    case KGB_F64: run<F64>(self, out, key); return KGB_OK;
    case KGB_F16: run<F16>(self, out, key); return KGB_OK;
    case KGB_BF16: run<BF16>(self, out, key); return KGB_OK;
    default: return KGB_ERR_UNSUPPORTED;
  }
}
