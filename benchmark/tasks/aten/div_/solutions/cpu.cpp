// aten/div_ on the CPU: self /= other (true, trunc or floor rounding), with PyTorch broadcasting and
// type promotion. The views are folded into one iteration space (broadcast
// dims get stride 0, size-1 dims go, dims contiguous for every tensor fuse)
// and split into (outer index, chunk of the inner dim) work items for OpenMP.
// When every operand has the same dtype and the inner dim is contiguous the
// loop runs directly on the storage type; otherwise each chunk is converted in
// blocks of 512 into the computation type (double, float or int64), computed
// there and stored into out's dtype: loops the compiler vectorises either way.
#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

// ---- dtypes and ATen's type promotion ----------------------------------------
bool is_float_dtype(int32_t t) { return t == KGB_F16 || t == KGB_BF16 || t == KGB_F32 || t == KGB_F64; }
bool supported_dtype(int32_t t) {
  return t == KGB_BOOL || t == KGB_I32 || t == KGB_I64 || is_float_dtype(t);
}

// torch.promote_types over bool, i32, i64, f16, bf16, f32, f64.
int32_t promote(int32_t a, int32_t b) {
  if (a == b) return a;
  if (a == KGB_BOOL) return b;
  if (b == KGB_BOOL) return a;
  const bool fa = is_float_dtype(a), fb = is_float_dtype(b);
  if (fa != fb) return fa ? a : b;
  if (!fa) return KGB_I64;                           // i32 with i64
  if (a == KGB_F64 || b == KGB_F64) return KGB_F64;
  return KGB_F32;                                    // f16 with bf16, or a 16-bit float with f32
}

// An operand of torch.result_type: a dimensioned tensor beats a zero-dim
// tensor, which beats a Scalar, unless the lower one is of a higher category.
enum Level { kDimensioned = 0, kZeroDim = 1, kScalar = 2 };
struct Operand {
  const kgb_tensor* t = nullptr;  // nullptr: an ATen Scalar
  kgb_scalar s{};
  int32_t dtype = KGB_F32;        // a Scalar counts as bool, i64 or (default dtype) f32
  Level level = kDimensioned;
};
Operand tensor_operand(const kgb_tensor* t) {
  Operand o;
  o.t = t;
  o.dtype = t->dtype;
  o.level = t->rank == 0 ? kZeroDim : kDimensioned;
  return o;
}
Operand scalar_operand(kgb_scalar s) {
  Operand o;
  o.s = s;
  o.dtype = s.dtype == KGB_F64 ? KGB_F32 : (s.dtype == KGB_BOOL ? KGB_BOOL : KGB_I64);
  o.level = kScalar;
  return o;
}
double scalar_value(const Operand& o) { return o.s.dtype == KGB_F64 ? o.s.v.f : static_cast<double>(o.s.v.i); }

int32_t result_type(const Operand& a, const Operand& b) {
  if (a.level == b.level) return promote(a.dtype, b.dtype);
  const int32_t higher = a.level < b.level ? a.dtype : b.dtype, lower = a.level < b.level ? b.dtype : a.dtype;
  if (is_float_dtype(higher)) return higher;
  if (higher == KGB_BOOL || is_float_dtype(lower)) return promote(higher, lower);
  return higher;
}

// ---- the operation --------------------------------------------------------------
// True division computes in float(common dtype): integer operands divide in f32.
struct DivTrue {
  static int32_t compute_dtype(int32_t common) { return is_float_dtype(common) ? common : KGB_F32; }
  static constexpr bool kDouble = true, kInt64 = false;  // computation types besides float
  template <typename C>
  static inline C apply(C a, C b) { return a / b; }
};
// rounding_mode "trunc": the quotient rounded toward zero, in the common dtype.
struct DivTrunc {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static inline C apply(C a, C b) {
    if constexpr (std::is_integral<C>::value) return a / b;
    else return trunc(a / b);
  }
};
// "trunc" with an f16/bf16 common dtype: ATen divides in that dtype, so the
// float quotient is rounded to 16 bits before it is truncated.
struct RoundF16 {
  static inline float apply(float v) { return kgb_f16_to_float(kgb_float_to_f16(v)); }
};
struct RoundBF16 {
  static inline float apply(float v) { return kgb_bf16_to_float(kgb_float_to_bf16(v)); }
};
template <typename Round>
struct DivTruncRounded {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = false, kInt64 = false;  // computation types besides float
  template <typename C>
  static inline C apply(C a, C b) {
    if constexpr (std::is_integral<C>::value) return a / b;
    else return trunc(static_cast<C>(Round::apply(static_cast<float>(a / b))));
  }
};
// rounding_mode "floor": the quotient rounded toward -inf, in the common dtype.
struct DivFloor {
  static int32_t compute_dtype(int32_t common) { return common; }
  static constexpr bool kDouble = true, kInt64 = true;  // computation types besides float
  template <typename C>
  static inline C apply(C a, C b) {
    if constexpr (std::is_integral<C>::value) {
      const C q = a / b, r = a % b;
      return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
    } else {
      if (b == C(0)) return a / b;
      C mod = fmod(a, b);
      C div = (a - mod) / b;
      if (mod != C(0) && (b < C(0)) != (mod < C(0))) div -= C(1);
      if (div == C(0)) return copysign(C(0), a / b);
      C floordiv = floor(div);
      if (div - floordiv > C(0.5)) floordiv += C(1);
      return floordiv;
    }
  }
};

// ---- the iteration space -----------------------------------------------------
struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t st[3][KGB_MAX_RANK];  // element strides of out, a, b (b: 0 everywhere for a Scalar)
};

bool input_stride(const kgb_tensor* t, int out_rank, int d, int64_t out_size, int64_t* stride) {
  const int k = t ? d - (out_rank - t->rank) : -1;
  if (k < 0 || t->sizes[k] == 1) { *stride = 0; return true; }
  if (t->sizes[k] != out_size) return false;
  *stride = t->strides[k];
  return true;
}

bool build_space(const kgb_tensor* out, const kgb_tensor* a, const kgb_tensor* b, Space& sp) {
  if (a->rank > out->rank || (b && b->rank > out->rank)) return false;
  Space raw;
  for (int d = 0; d < out->rank; ++d) {
    const int64_t n = out->sizes[d];
    int64_t sa, sb;
    if (!input_stride(a, out->rank, d, n, &sa) || !input_stride(b, out->rank, d, n, &sb)) return false;
    if (n == 1) continue;
    raw.size[raw.rank] = n;
    raw.st[0][raw.rank] = out->strides[d];
    raw.st[1][raw.rank] = sa;
    raw.st[2][raw.rank] = sb;
    ++raw.rank;
  }
  // Walk out in storage order: dims by |out stride|, largest first.
  for (int i = 1; i < raw.rank; ++i)
    for (int j = i; j > 0; --j) {
      const int64_t x = raw.st[0][j - 1] < 0 ? -raw.st[0][j - 1] : raw.st[0][j - 1];
      const int64_t y = raw.st[0][j] < 0 ? -raw.st[0][j] : raw.st[0][j];
      if (x >= y) break;
      const int64_t ts = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = ts;
      for (int k = 0; k < 3; ++k) { const int64_t t = raw.st[k][j]; raw.st[k][j] = raw.st[k][j - 1]; raw.st[k][j - 1] = t; }
    }
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    if (sp.rank > 0) {
      const int p = sp.rank - 1;
      bool fuse = true;
      for (int k = 0; k < 3; ++k) fuse = fuse && sp.st[k][p] == raw.st[k][d] * raw.size[d];
      if (fuse) {
        sp.size[p] *= raw.size[d];
        for (int k = 0; k < 3; ++k) sp.st[k][p] = raw.st[k][d];
        continue;
      }
    }
    sp.size[sp.rank] = raw.size[d];
    for (int k = 0; k < 3; ++k) sp.st[k][sp.rank] = raw.st[k][d];
    ++sp.rank;
  }
  if (sp.rank == 0) {
    sp.rank = 1;
    sp.size[0] = 1;
    sp.st[0][0] = sp.st[1][0] = sp.st[2][0] = 0;
  }
  return true;
}

// Runs row(o, a, b, n, so, sa, sb) over every chunk of the innermost dim, in parallel.
template <typename Row>
void for_each_row(const Space& sp, char* o, const char* a, const char* b, const int64_t elem[3], Row row) {
  const int last = sp.rank - 1;
  const int64_t inner = sp.size[last];
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= sp.size[d];
  const int64_t kChunk = 16384;
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  const int64_t items = outer * chunks;
#pragma omp parallel for schedule(static) if (outer * inner > 32768)
  for (int64_t w = 0; w < items; ++w) {
    int64_t rem = w / chunks;
    const int64_t begin = (w % chunks) * kChunk;
    int64_t off[3] = {begin * sp.st[0][last], begin * sp.st[1][last], begin * sp.st[2][last]};
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rem % sp.size[d];
      rem /= sp.size[d];
      for (int k = 0; k < 3; ++k) off[k] += i * sp.st[k][d];
    }
    const int64_t len = inner - begin < kChunk ? inner - begin : kChunk;
    row(o + off[0] * elem[0], a + off[1] * elem[1], b ? b + off[2] * elem[2] : nullptr, len, sp.st[0][last],
        sp.st[1][last], sp.st[2][last]);
  }
}

// ---- conversions between storage and computation types ------------------------
template <typename S, typename C, typename Cvt>
void gather(const S* p, int64_t s, int n, C* dst, Cvt cvt) {
  if (s == 1) for (int i = 0; i < n; ++i) dst[i] = static_cast<C>(cvt(p[i]));
  else if (s == 0) { const C v = static_cast<C>(cvt(p[0])); for (int i = 0; i < n; ++i) dst[i] = v; }
  else for (int i = 0; i < n; ++i) dst[i] = static_cast<C>(cvt(p[i * s]));
}
template <typename S, typename R, typename Cvt>
void scatter(const R* src, S* p, int64_t s, int n, Cvt cvt) {
  if (s == 1) for (int i = 0; i < n; ++i) p[i] = cvt(src[i]);
  else for (int i = 0; i < n; ++i) p[i * s] = cvt(src[i]);
}
template <typename T> T same(T v) { return v; }

// n elements of dtype dt at stride s into the computation type C. An operand
// of another dtype whose common dtype is f16/bf16 (an integer, or an f32/f64
// zero-dim tensor) is rounded to it first.
template <typename C>
void load(const char* p, int32_t dt, int32_t common, int64_t s, int n, C* dst) {
  switch (dt) {
    case KGB_F32: gather(reinterpret_cast<const float*>(p), s, n, dst, same<float>); break;
    case KGB_F64: gather(reinterpret_cast<const double*>(p), s, n, dst, same<double>); break;
    case KGB_F16: gather(reinterpret_cast<const uint16_t*>(p), s, n, dst, kgb_f16_to_float); break;
    case KGB_BF16: gather(reinterpret_cast<const uint16_t*>(p), s, n, dst, kgb_bf16_to_float); break;
    case KGB_I32: gather(reinterpret_cast<const int32_t*>(p), s, n, dst, same<int32_t>); break;
    case KGB_I64: gather(reinterpret_cast<const int64_t*>(p), s, n, dst, same<int64_t>); break;
    default: gather(reinterpret_cast<const uint8_t*>(p), s, n, dst, [](uint8_t v) { return v != 0; }); break;
  }
  if (dt != common && common == KGB_F16)
    for (int i = 0; i < n; ++i) dst[i] = static_cast<C>(kgb_f16_to_float(kgb_float_to_f16(static_cast<float>(dst[i]))));
  if (dt != common && common == KGB_BF16)
    for (int i = 0; i < n; ++i) dst[i] = static_cast<C>(kgb_bf16_to_float(kgb_float_to_bf16(static_cast<float>(dst[i]))));
}

// n results into out's dtype: 16-bit floats round once, bool stores 0/1.
template <typename R>
void store(const R* src, char* p, int32_t dt, int64_t s, int n) {
  switch (dt) {
    case KGB_F32: scatter(src, reinterpret_cast<float*>(p), s, n, [](R v) { return static_cast<float>(v); }); break;
    case KGB_F64: scatter(src, reinterpret_cast<double*>(p), s, n, [](R v) { return static_cast<double>(v); }); break;
    case KGB_F16: scatter(src, reinterpret_cast<uint16_t*>(p), s, n, [](R v) { return kgb_float_to_f16(static_cast<float>(v)); }); break;
    case KGB_BF16: scatter(src, reinterpret_cast<uint16_t*>(p), s, n, [](R v) { return kgb_float_to_bf16(static_cast<float>(v)); }); break;
    case KGB_I32: scatter(src, reinterpret_cast<int32_t*>(p), s, n, [](R v) { return static_cast<int32_t>(v); }); break;
    case KGB_I64: scatter(src, reinterpret_cast<int64_t*>(p), s, n, [](R v) { return static_cast<int64_t>(v); }); break;
    default: scatter(src, reinterpret_cast<uint8_t*>(p), s, n, [](R v) { return static_cast<uint8_t>(v != R(0)); }); break;
  }
}

// ---- the two row kernels ------------------------------------------------------
// Same storage type S for a and b, out of type O, unit inner stride for out.
template <typename Op, typename C, typename S, typename O>
void row_direct(O* o, const S* a, const S* b, int64_t n, int64_t sa, int64_t sb, C bs) {
  if (!b) {
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(Op::apply(static_cast<C>(a[i * sa]), bs));
  } else if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(Op::apply(static_cast<C>(a[i]), static_cast<C>(b[i])));
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(Op::apply(static_cast<C>(a[i * sa]), static_cast<C>(b[i * sb])));
  }
}

// Any dtypes: blocks converted into C, computed, stored.
template <typename Op, typename C>
void row_blocked(char* o, const char* a, const char* b, int64_t n, int64_t so, int64_t sa, int64_t sb, int32_t dto,
                 int32_t dta, int32_t dtb, int32_t common, C bs) {
  using R = decltype(Op::apply(C(), C()));
  constexpr int kBlock = 512;
  C x[kBlock], y[kBlock];
  R r[kBlock];
  const int64_t eo = kgb_dtype_size(dto), ea = kgb_dtype_size(dta), eb = kgb_dtype_size(dtb);
  for (int64_t start = 0; start < n; start += kBlock) {
    const int m = static_cast<int>(n - start < kBlock ? n - start : kBlock);
    load(a + start * sa * ea, dta, common, sa, m, x);
    if (b) load(b + start * sb * eb, dtb, common, sb, m, y);
    else for (int i = 0; i < m; ++i) y[i] = bs;
    for (int i = 0; i < m; ++i) r[i] = Op::apply(x[i], y[i]);
    store(r, o + start * so * eo, dto, so, m);
  }
}

template <typename Op, typename C, typename S>
bool try_direct(const Space& sp, const Operand& a, const Operand& b, kgb_tensor* out, C bs) {
  const int last = sp.rank - 1;
  if (sp.st[0][last] != 1 || kgb_dtype_size(a.dtype) != sizeof(S) || (b.t && b.dtype != a.dtype)) return false;
  const int64_t elem[3] = {kgb_dtype_size(out->dtype), kgb_dtype_size(a.dtype), b.t ? kgb_dtype_size(b.dtype) : 0};
  const char* bd = b.t ? static_cast<const char*>(b.t->data) : nullptr;
  using R = decltype(Op::apply(C(), C()));
  if (out->dtype == a.dtype || (out->dtype == KGB_BOOL && sizeof(R) == 1)) {
    using O = typename std::conditional<sizeof(R) == 1, uint8_t, S>::type;
    if (kgb_dtype_size(out->dtype) != sizeof(O)) return false;
    for_each_row(sp, static_cast<char*>(out->data), static_cast<const char*>(a.t->data), bd, elem,
                 [bs](char* o, const char* pa, const char* pb, int64_t n, int64_t, int64_t sa, int64_t sb) {
                   row_direct<Op, C, S, O>(reinterpret_cast<O*>(o), reinterpret_cast<const S*>(pa),
                                           reinterpret_cast<const S*>(pb), n, sa, sb, bs);
                 });
    return true;
  }
  return false;
}

// out = Op(a, b) in the computation type C, `common` being the dtype ATen computes in.
template <typename Op, typename C>
int run_in(const Space& sp, const Operand& a, const Operand& b, kgb_tensor* out, int32_t common) {
  const C bs = b.t ? C(0) : static_cast<C>(scalar_value(b));
  // Storage = computation type (f32 in float, f64 in double, ints in int64): direct loops.
  const bool native = (a.dtype == KGB_F32 && sizeof(C) == 4 && common == KGB_F32) ||
                      (a.dtype == KGB_F64 && common == KGB_F64) ||
                      ((a.dtype == KGB_I32 || a.dtype == KGB_I64) && common == a.dtype && !is_float_dtype(common));
  if (native && (!b.t || b.dtype == a.dtype)) {
    bool done = false;
    switch (a.dtype) {
      case KGB_F32: done = try_direct<Op, C, float>(sp, a, b, out, bs); break;
      case KGB_F64: done = try_direct<Op, C, double>(sp, a, b, out, bs); break;
      case KGB_I32: done = try_direct<Op, C, int32_t>(sp, a, b, out, bs); break;
      case KGB_I64: done = try_direct<Op, C, int64_t>(sp, a, b, out, bs); break;
    }
    if (done) return KGB_OK;
  }
  const int64_t elem[3] = {kgb_dtype_size(out->dtype), kgb_dtype_size(a.dtype), b.t ? kgb_dtype_size(b.dtype) : 0};
  const int32_t dto = out->dtype, dta = a.dtype, dtb = b.dtype;
  for_each_row(sp, static_cast<char*>(out->data), static_cast<const char*>(a.t->data),
               b.t ? static_cast<const char*>(b.t->data) : nullptr, elem,
               [=](char* o, const char* pa, const char* pb, int64_t n, int64_t so, int64_t sa, int64_t sb) {
                 row_blocked<Op, C>(o, pa, pb, n, so, sa, sb, dto, dta, dtb, common, bs);
               });
  return KGB_OK;
}

template <typename Op>
int run(const Operand& a, const Operand& b, kgb_tensor* out, kgb_stream stream) {
  (void)stream;  // the CPU platform has no queue
  if (!supported_dtype(a.dtype) || !supported_dtype(b.dtype) || !supported_dtype(out->dtype)) return KGB_ERR_UNSUPPORTED;
  const int32_t common = Op::compute_dtype(result_type(a, b));
  if (common < 0) return KGB_ERR_UNSUPPORTED;
  Space sp;
  if (!build_space(out, a.t, b.t, sp)) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;
  // Only the computation types the op can reach are instantiated.
  if (common == KGB_F64) {
    if constexpr (Op::kDouble) return run_in<Op, double>(sp, a, b, out, common);
  } else if (is_float_dtype(common)) {
    return run_in<Op, float>(sp, a, b, out, common);
  } else {
    if constexpr (Op::kInt64) return run_in<Op, int64_t>(sp, a, b, out, common);
  }
  return KGB_ERR_UNSUPPORTED;
}

// The entry points' common path: the functor for the mode, then run.
int dispatch(const Operand& a, const Operand& b, kgb_tensor* out, int mode, kgb_stream stream) {
  switch (mode) {
    case 1:
      if (result_type(a, b) == KGB_F16) return run<DivTruncRounded<RoundF16>>(a, b, out, stream);
      if (result_type(a, b) == KGB_BF16) return run<DivTruncRounded<RoundBF16>>(a, b, out, stream);
      return run<DivTrunc>(a, b, out, stream);
    case 2: return run<DivFloor>(a, b, out, stream);
    default: return run<DivTrue>(a, b, out, stream);
  }
}

}  // namespace

extern "C" int kgb_aten_div_(kgb_tensor* self, const kgb_tensor* other, kgb_stream stream) {
  return dispatch(tensor_operand(self), tensor_operand(other), self, 0, stream);
}

extern "C" int kgb_aten_div__Scalar(kgb_tensor* self, kgb_scalar other, kgb_stream stream) {
  return dispatch(tensor_operand(self), scalar_operand(other), self, 0, stream);
}

extern "C" int kgb_aten_div__Tensor_mode(kgb_tensor* self, const kgb_tensor* other, const int* rounding_mode, kgb_stream stream) {
  return dispatch(tensor_operand(self), tensor_operand(other), self, rounding_mode ? *rounding_mode : 0, stream);
}

extern "C" int kgb_aten_div__Scalar_mode(kgb_tensor* self, kgb_scalar other, const int* rounding_mode, kgb_stream stream) {
  return dispatch(tensor_operand(self), scalar_operand(other), self, rounding_mode ? *rounding_mode : 0, stream);
}

