// aten/rrelu_with_noise on the CPU.
//
// training: where x <= 0, slope r = lower + u * (upper - lower) with u a
// 24-bit (53-bit for f64) uniform in (0, 1] from splitmix64 keyed by (seed,
// logical row-major index), clamped to [lower, upper] and rounded to T;
// noise = r and out = x * r in the compute type (float, double for f64),
// rounded once to T. Elsewhere noise = 1, out = x. eval: out = x > 0 ? x :
// x * slope, noise untouched. The draws depend only on the index, so rows
// can be split over OpenMP threads freely. eval and training have their own
// loops; when the tensors a mode touches are row-major the loop is one flat
// branch-free pass the compiler vectorises (selects instead of branches),
// otherwise rows of the innermost dim.
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

// Storage type S, compute type C, and the uniform in (0, 1] of a hash.
struct F32 {
  using S = float;
  using C = float;
  static C load(S v) { return v; }
  static S store(C v) { return v; }
  static C uniform(uint64_t h) { return static_cast<float>((h >> 40) + 1) * 0x1.0p-24f; }
};
struct F64 {
  using S = double;
  using C = double;
  static C load(S v) { return v; }
  static S store(C v) { return v; }
  static C uniform(uint64_t h) { return static_cast<double>((h >> 11) + 1) * 0x1.0p-53; }
};
struct F16 {
  using S = uint16_t;
  using C = float;
  static C load(S v) { return kgb_f16_to_float(v); }
  static S store(C v) { return kgb_float_to_f16(v); }
  static C uniform(uint64_t h) { return F32::uniform(h); }
};
struct BF16 {
  using S = uint16_t;
  using C = float;
  static C load(S v) { return kgb_bf16_to_float(v); }
  static S store(C v) { return kgb_float_to_bf16(v); }
  static C uniform(uint64_t h) { return F32::uniform(h); }
};

template <class K>
struct Params {
  typename K::C lower, range, upper, slope;
  uint64_t key;
  bool training;
};

// eval: leaky ReLU; noise is never touched.
template <class K>
inline typename K::S eval_element(typename K::C slope, typename K::S xs) {
  const typename K::C x = K::load(xs);
  return x > 0 ? xs : K::store(x * slope);
}

// training: one element, writes noise and out.
template <class K>
inline void train_element(const Params<K>& p, typename K::S xs, typename K::S* noise, typename K::S* out, uint64_t i) {
  using C = typename K::C;
  const C x = K::load(xs);
  C r = p.lower + K::uniform(mix64(p.key ^ mix64(i))) * p.range;
  r = r > p.upper ? p.upper : r;
  const typename K::S rs = K::store(r);
  const bool draw = x <= 0;
  *noise = draw ? rs : K::store(C(1));
  *out = draw ? K::store(x * K::load(rs)) : xs;
}

bool row_major(const kgb_tensor* t) {
  int64_t expect = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

template <class K>
void run(const kgb_tensor* self, kgb_tensor* noise, kgb_tensor* out, const Params<K>& p) {
  using S = typename K::S;
  const S* x = static_cast<const S*>(self->data);
  S* nz = static_cast<S*>(noise->data);
  S* o = static_cast<S*>(out->data);
  const int rank = out->rank;
  int64_t numel = 1;
  for (int d = 0; d < rank; ++d) numel *= out->sizes[d];
  if (numel == 0) return;
  const bool dense_io = row_major(self) && row_major(out);
  if (dense_io && !p.training) {
    const typename K::C slope = p.slope;
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < numel; ++i) o[i] = eval_element<K>(slope, x[i]);
    return;
  }
  if (dense_io && row_major(noise)) {
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < numel; ++i) train_element<K>(p, x[i], nz + i, o + i, static_cast<uint64_t>(i));
    return;
  }
  const int64_t len = rank > 0 ? out->sizes[rank - 1] : 1, rows = numel / len;
  const int64_t xs = rank > 0 ? self->strides[rank - 1] : 0, ns = rank > 0 ? noise->strides[rank - 1] : 0,
                os = rank > 0 ? out->strides[rank - 1] : 0;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t xo = 0, no = 0, oo = 0, rest = r;
    for (int d = rank - 2; d >= 0; --d) {
      const int64_t c = rest % out->sizes[d];
      rest /= out->sizes[d];
      xo += c * self->strides[d];
      no += c * noise->strides[d];
      oo += c * out->strides[d];
    }
    const uint64_t first = static_cast<uint64_t>(r * len);
    if (!p.training) {
      for (int64_t j = 0; j < len; ++j) o[oo + j * os] = eval_element<K>(p.slope, x[xo + j * xs]);
    } else {
      for (int64_t j = 0; j < len; ++j)
        train_element<K>(p, x[xo + j * xs], nz + no + j * ns, o + oo + j * os, first + static_cast<uint64_t>(j));
    }
  }
}

double scalar_value(const kgb_scalar& s) {
  return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i);
}

template <class K>
int launch(const kgb_tensor* self, kgb_tensor* noise, double lower, double upper, int training, uint64_t key, kgb_tensor* out) {
  using C = typename K::C;
  Params<K> p;
  p.lower = static_cast<C>(lower);
  p.upper = static_cast<C>(upper);
  p.range = static_cast<C>(upper - lower);
  p.slope = static_cast<C>((lower + upper) / 2);
  p.key = key;
  p.training = training != 0;
  run<K>(self, noise, out, p);
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_rrelu_with_noise(const kgb_tensor* self, kgb_tensor* noise, kgb_scalar lower, kgb_scalar upper,
                                         int training, int64_t seed, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->dtype != out->dtype || noise->dtype != out->dtype || self->rank != out->rank || noise->rank != out->rank)
    return KGB_ERR_INVALID;
  const double lo = scalar_value(lower), hi = scalar_value(upper);
  const uint64_t key = mix64(static_cast<uint64_t>(seed));
  switch (out->dtype) {
    case KGB_F32: return launch<F32>(self, noise, lo, hi, training, key, out);
    case KGB_F64: return launch<F64>(self, noise, lo, hi, training, key, out);
    case KGB_F16: return launch<F16>(self, noise, lo, hi, training, key, out);
    case KGB_BF16: return launch<BF16>(self, noise, lo, hi, training, key, out);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
