// aten/i0 on the CPU: out = I0(x), elementwise.
// float: Abramowitz & Stegun's polynomial approximations; double: power series up to |x| = 30, asymptotic expansion above.
// self and out are folded into the fewest dimensions (size-1 dims dropped,
// dims contiguous in both merged) and walked in out's storage order. OpenMP
// splits the rows into chunks; a unit-stride row is a plain loop the compiler
// vectorises, a stride-0 row computes one value.
// f16/bf16 and integer inputs compute in float and round once; f64 in double.
#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

template <typename C>
struct OpArgs {};

// Modified Bessel function of the first kind, order 0.
// float: the polynomial approximations of Abramowitz & Stegun 9.8.1 (|x| < 3.75)
// and 9.8.2 (above; e^-|x| sqrt(|x|) I0 in powers of 3.75/|x|), relative error
// below 1e-6 in float: a few multiply-adds and one exp, no data-dependent loop.
// double: the power series sum_k ((x/2)^2)^k / (k!)^2 up to |x| = 30, the
// asymptotic expansion e^|x| / sqrt(2 pi |x|) * sum_k prod_{j<=k} (2j-1)^2 / (8 j |x|)
// above. Both multiply e^|x| last, as ATen does: +inf exactly when e^|x|
// overflows the compute type, NaN at |x| = inf (inf * 0).
template <typename C>
inline C bessel_i0(C x) {
  const C ax = fabs(x);
  if (sizeof(C) == 4) {
    if (ax < C(3.75)) {
      C t = ax / C(3.75);
      t *= t;
      return C(1) + t * (C(3.5156229) + t * (C(3.0899424) + t * (C(1.2067492) + t * (C(0.2659732) +
             t * (C(0.0360768) + t * C(0.0045813))))));
    }
    const C u = C(3.75) / ax;
    const C p = C(0.39894228) + u * (C(0.01328592) + u * (C(0.00225319) + u * (C(-0.00157565) + u * (C(0.00916281) +
                u * (C(-0.02057706) + u * (C(0.02635537) + u * (C(-0.01647633) + u * C(0.00392377))))))));
    return exp(ax) * (p / sqrt(ax));
  }
  if (ax <= C(30)) {
    const C q = C(0.25) * ax * ax;
    C term = 1, sum = 1;
    for (int k = 1; k < 120; ++k) {
      term *= q / C(k * k);
      sum += term;
      if (term <= sum * C(1e-17)) break;
    }
    return sum;
  }
  const C inv8x = C(1) / (C(8) * ax);
  C term = 1, sum = 1;
  for (int k = 1; k <= 25; ++k) {
    term *= C((2 * k - 1) * (2 * k - 1)) * inv8x / C(k);
    sum += term;
  }
  return exp(ax) * (sum / sqrt(C(6.283185307179586476925) * ax));
}

// The op in compute type C (float, or double for f64).
template <typename C>
inline C op(C x, const OpArgs<C>& p) {
  (void)p;
  return bessel_i0(x);
}

// Storage type and conversions of each dtype this entry reads or writes.
template <int DT> struct Elem;
template <> struct Elem<KGB_F32> {
  using S = float;
  static float load(S v) { return v; }
  static S store(float v) { return v; }
};
template <> struct Elem<KGB_F64> {
  using S = double;
  static double load(S v) { return v; }
  static S store(double v) { return v; }
};
template <> struct Elem<KGB_F16> {
  using S = uint16_t;
  static float load(S v) { return kgb_f16_to_float(v); }
  static S store(float v) { return kgb_float_to_f16(v); }
};
template <> struct Elem<KGB_BF16> {
  using S = uint16_t;
  static float load(S v) { return kgb_bf16_to_float(v); }
  static S store(float v) { return kgb_float_to_bf16(v); }
};
// Integer and bool inputs are read as their value (out is f32).
template <> struct Elem<KGB_I32> {
  using S = int32_t;
  static float load(S v) { return static_cast<float>(v); }
};
template <> struct Elem<KGB_I64> {
  using S = int64_t;
  static float load(S v) { return static_cast<float>(v); }
};
template <> struct Elem<KGB_BOOL> {
  using S = uint8_t;
  static float load(S v) { return v ? 1.0f : 0.0f; }
};

// The compute type of each output dtype: float, or double for f64.
template <int OUT>
using Compute = std::conditional_t<OUT == KGB_F64, double, float>;

// ---- the iteration space: dim sizes and the element strides of out and self
struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t so[KGB_MAX_RANK];
  int64_t si[KGB_MAX_RANK];
};

int64_t magnitude(int64_t v) { return v < 0 ? -v : v; }

bool build_space(const kgb_tensor* self, const kgb_tensor* out, Space& sp) {
  if (self->rank != out->rank || out->rank > KGB_MAX_RANK) return false;
  Space raw;
  for (int d = 0; d < out->rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return false;
    if (out->sizes[d] == 1) continue;  // contributes nothing to addressing
    raw.size[raw.rank] = out->sizes[d];
    raw.so[raw.rank] = out->strides[d];
    raw.si[raw.rank] = self->strides[d];
    ++raw.rank;
  }
  // Walk out in storage order: dims sorted by |out stride|, largest first.
  for (int i = 1; i < raw.rank; ++i)
    for (int j = i; j > 0 && magnitude(raw.so[j - 1]) < magnitude(raw.so[j]); --j) {
      int64_t t = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = t;
      t = raw.so[j]; raw.so[j] = raw.so[j - 1]; raw.so[j - 1] = t;
      t = raw.si[j]; raw.si[j] = raw.si[j - 1]; raw.si[j - 1] = t;
    }
  // Fuse a dim into the previous one when both tensors step over it exactly one row.
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    const int p = sp.rank - 1;
    if (p >= 0 && sp.so[p] == raw.so[d] * raw.size[d] && sp.si[p] == raw.si[d] * raw.size[d]) {
      sp.size[p] *= raw.size[d];
      sp.so[p] = raw.so[d];
      sp.si[p] = raw.si[d];
      continue;
    }
    sp.size[sp.rank] = raw.size[d];
    sp.so[sp.rank] = raw.so[d];
    sp.si[sp.rank] = raw.si[d];
    ++sp.rank;
  }
  if (sp.rank == 0) {  // a single element
    sp.rank = 1;
    sp.size[0] = 1;
    sp.so[0] = sp.si[0] = 0;
  }
  return true;
}

// One row of n elements: unit strides, a broadcast (stride-0) input, or general strides.
template <int IN, int OUT>
void row(const typename Elem<IN>::S* __restrict a, int64_t sa, typename Elem<OUT>::S* __restrict o, int64_t so,
         int64_t n, const OpArgs<Compute<OUT>>& p) {
  using C = Compute<OUT>;
  if (sa == 1 && so == 1) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = Elem<OUT>::store(op<C>(static_cast<C>(Elem<IN>::load(a[i])), p));
  } else if (sa == 0) {
    const typename Elem<OUT>::S v = Elem<OUT>::store(op<C>(static_cast<C>(Elem<IN>::load(a[0])), p));
    for (int64_t i = 0; i < n; ++i) o[i * so] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) o[i * so] = Elem<OUT>::store(op<C>(static_cast<C>(Elem<IN>::load(a[i * sa])), p));
  }
}

template <int IN, int OUT>
int run(const kgb_tensor* self, kgb_tensor* out, const OpArgs<Compute<OUT>>& p) {
  Space sp;
  if (!build_space(self, out, sp)) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;
  const auto* a = static_cast<const typename Elem<IN>::S*>(self->data);
  auto* o = static_cast<typename Elem<OUT>::S*>(out->data);
  // Work items: (outer index, chunk of the innermost dim).
  const int last = sp.rank - 1;
  const int64_t inner = sp.size[last];
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= sp.size[d];
  const int64_t kChunk = 8192;
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  const int64_t items = outer * chunks;
#pragma omp parallel for schedule(static) if (outer * inner > 16384)
  for (int64_t w = 0; w < items; ++w) {
    int64_t rest = w / chunks;
    const int64_t begin = (w % chunks) * kChunk;
    int64_t oo = begin * sp.so[last], io = begin * sp.si[last];
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rest % sp.size[d];
      rest /= sp.size[d];
      oo += i * sp.so[d];
      io += i * sp.si[d];
    }
    const int64_t len = inner - begin < kChunk ? inner - begin : kChunk;
    row<IN, OUT>(a + io, sp.si[last], o + oo, sp.so[last], len, p);
  }
  return KGB_OK;
}

// Dispatch on (self dtype, out dtype): floating self gives the same dtype, integer and bool self give f32 (ATen's float(T)).
template <typename Make>
int dispatch(const kgb_tensor* self, kgb_tensor* out, Make make_args) {
  switch (self->dtype) {
    case KGB_F32: return out->dtype == KGB_F32 ? run<KGB_F32, KGB_F32>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    case KGB_F64: return out->dtype == KGB_F64 ? run<KGB_F64, KGB_F64>(self, out, make_args(double())) : KGB_ERR_UNSUPPORTED;
    case KGB_F16: return out->dtype == KGB_F16 ? run<KGB_F16, KGB_F16>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    case KGB_BF16: return out->dtype == KGB_BF16 ? run<KGB_BF16, KGB_BF16>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    case KGB_I32: return out->dtype == KGB_F32 ? run<KGB_I32, KGB_F32>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    case KGB_I64: return out->dtype == KGB_F32 ? run<KGB_I64, KGB_F32>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    case KGB_BOOL: return out->dtype == KGB_F32 ? run<KGB_BOOL, KGB_F32>(self, out, make_args(float())) : KGB_ERR_UNSUPPORTED;
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_aten_i0(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  return dispatch(self, out, [&](auto zero) {
    using C = decltype(zero);
    OpArgs<C> p{};
    return p;
  });
}
