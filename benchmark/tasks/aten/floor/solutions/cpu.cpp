// aten/floor on the CPU: out = floor(self) (the identity on integers).
// Self and out may have different dtypes; self is converted to the compute type on load.
//
// The tensors are folded into one iteration space (broadcast dimensions get
// stride 0, size-1 dimensions go, dimensions contiguous in every tensor
// merge), walked in out's storage order and split across OpenMP threads in
// row chunks. A row whose tensors all hold the compute type is computed
// directly (unit and zero strides vectorise); any other row is converted to
// the compute type in blocks that stay in L1 (f16 through F16C), computed,
// and rounded once into out's dtype. Compute type: float for f16/bf16/f32
// results, double for f64, int64 for integer results (stored back with
// two's-complement wrap-around).
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "kgb_half.h"
#include "kgb_kernel.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define KGB_HAVE_F16C 1
#endif

namespace {

constexpr int kOperands = 2;  // out, self
constexpr int kBlock = 256;       // elements converted per step (fits L1)

// ---- the operation, per compute type --------------------------------------
template <typename C>
struct Params {};
inline float op(float a, const Params<float>& p) {
  (void)p;
  return floorf(a);
}
inline double op(double a, const Params<double>& p) {
  (void)p;
  return floor(a);
}
inline int64_t op(int64_t a, const Params<int64_t>& p) {
  (void)p;
  return a;
}

// ---- dtypes ---------------------------------------------------------------
bool supported(int32_t dtype) {
  switch (dtype) {
    case KGB_I32:
    case KGB_I64:
    case KGB_F16:
    case KGB_BF16:
    case KGB_F32:
    case KGB_F64:
      return true;
    default:
      return false;
  }
}

template <typename C>
constexpr int32_t native_dtype() {
  return std::is_same<C, float>::value ? KGB_F32
       : std::is_same<C, double>::value ? KGB_F64
       : std::is_same<C, bool>::value ? KGB_BOOL : KGB_I64;
}

template <typename T, typename C>
void load_plain(const T* p, int64_t s, int n, C* dst) {
  if (s == 1) {
    for (int i = 0; i < n; ++i) dst[i] = static_cast<C>(p[i]);
  } else if (s == 0) {
    const C v = static_cast<C>(p[0]);
    for (int i = 0; i < n; ++i) dst[i] = v;
  } else {
    for (int i = 0; i < n; ++i) dst[i] = static_cast<C>(p[i * s]);
  }
}

template <typename C>
void load_f16(const uint16_t* p, int64_t s, int n, C* dst) {
  int i = 0;
#if KGB_HAVE_F16C
  if (std::is_same<C, float>::value && s == 1)
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(reinterpret_cast<float*>(dst) + i,
                       _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
#endif
  for (; i < n; ++i) dst[i] = static_cast<C>(kgb_f16_to_float(p[i * s]));
}

template <typename C>
void load_bf16(const uint16_t* p, int64_t s, int n, C* dst) {
  for (int i = 0; i < n; ++i) dst[i] = static_cast<C>(kgb_bf16_to_float(p[i * s]));
}

// n elements of a strided tensor (stride s, 0 = one repeated value) as C.
template <typename C>
void load_block(const char* p, int32_t dtype, int64_t s, int n, C* dst) {
  switch (dtype) {
    case KGB_F32: load_plain(reinterpret_cast<const float*>(p), s, n, dst); break;
    case KGB_F64: load_plain(reinterpret_cast<const double*>(p), s, n, dst); break;
    case KGB_F16: load_f16(reinterpret_cast<const uint16_t*>(p), s, n, dst); break;
    case KGB_BF16: load_bf16(reinterpret_cast<const uint16_t*>(p), s, n, dst); break;
    case KGB_I64: load_plain(reinterpret_cast<const int64_t*>(p), s, n, dst); break;
    case KGB_I32: load_plain(reinterpret_cast<const int32_t*>(p), s, n, dst); break;
    case KGB_I16: load_plain(reinterpret_cast<const int16_t*>(p), s, n, dst); break;
    case KGB_I8: load_plain(reinterpret_cast<const int8_t*>(p), s, n, dst); break;
    case KGB_U8: load_plain(reinterpret_cast<const uint8_t*>(p), s, n, dst); break;
    case KGB_BOOL: {
      const uint8_t* b = reinterpret_cast<const uint8_t*>(p);
      for (int i = 0; i < n; ++i) dst[i] = static_cast<C>(b[i * s] != 0);
      break;
    }
    default: break;  // rejected before the loop
  }
}

template <typename T, typename C>
void store_plain(const C* src, T* p, int64_t s, int n) {
  if (s == 1) {
    for (int i = 0; i < n; ++i) p[i] = static_cast<T>(src[i]);
  } else {
    for (int i = 0; i < n; ++i) p[i * s] = static_cast<T>(src[i]);
  }
}

// Rounds n computed values once into out's dtype. Float results come from
// float (f16/bf16/f32), f64 from double, integers and bool from their own
// compute types, so every store below is a single rounding.
template <typename C>
void store_block(const C* src, char* p, int32_t dtype, int64_t s, int n) {
  if (std::is_same<C, float>::value) {
    const float* f = reinterpret_cast<const float*>(src);
    if (dtype == KGB_F32) {
      store_plain(f, reinterpret_cast<float*>(p), s, n);
    } else if (dtype == KGB_F16) {
      uint16_t* h = reinterpret_cast<uint16_t*>(p);
      int i = 0;
#if KGB_HAVE_F16C
      if (s == 1)
        for (; i + 8 <= n; i += 8)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(h + i), _mm256_cvtps_ph(_mm256_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT));
#endif
      for (; i < n; ++i) h[i * s] = kgb_float_to_f16(f[i]);
    } else {
      uint16_t* h = reinterpret_cast<uint16_t*>(p);
      for (int i = 0; i < n; ++i) h[i * s] = kgb_float_to_bf16(f[i]);
    }
  } else if (std::is_same<C, double>::value) {
    store_plain(src, reinterpret_cast<double*>(p), s, n);
  } else {
    switch (dtype) {  // integer results wrap like ATen's integer tensors
      case KGB_I64: store_plain(src, reinterpret_cast<int64_t*>(p), s, n); break;
      case KGB_I32: store_plain(src, reinterpret_cast<int32_t*>(p), s, n); break;
      case KGB_I16: store_plain(src, reinterpret_cast<int16_t*>(p), s, n); break;
      case KGB_I8: store_plain(src, reinterpret_cast<int8_t*>(p), s, n); break;
      case KGB_U8: store_plain(src, reinterpret_cast<uint8_t*>(p), s, n); break;
      default: {
        uint8_t* b = reinterpret_cast<uint8_t*>(p);
        for (int i = 0; i < n; ++i) b[i * s] = src[i] != 0;
      }
    }
  }
}

// ---- the iteration space --------------------------------------------------
struct Operand {
  char* data;
  int32_t dtype;
  int32_t elem;
};

struct Space {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t st[kOperands][KGB_MAX_RANK];  // element strides per operand
};

// Stride of `t` along out's dim d (0 when broadcast); false if it does not broadcast.
bool input_stride(const kgb_tensor* t, int out_rank, int d, int64_t out_size, int64_t* stride) {
  const int k = d - (out_rank - t->rank);
  if (k < 0 || t->sizes[k] == 1) { *stride = 0; return true; }
  if (t->sizes[k] != out_size) return false;
  *stride = t->strides[k];
  return true;
}

bool build_space(const kgb_tensor* const* t, Space& sp) {
  const kgb_tensor* out = t[0];
  if (out->rank > KGB_MAX_RANK) return false;
  for (int k = 1; k < kOperands; ++k)
    if (t[k]->rank > out->rank) return false;
  Space raw;
  for (int d = 0; d < out->rank; ++d) {
    const int64_t n = out->sizes[d];
    int64_t st[kOperands];
    st[0] = out->strides[d];
    for (int k = 1; k < kOperands; ++k)
      if (!input_stride(t[k], out->rank, d, n, &st[k])) return false;
    if (n == 1) continue;  // contributes nothing to addressing
    raw.size[raw.rank] = n;
    for (int k = 0; k < kOperands; ++k) raw.st[k][raw.rank] = st[k];
    ++raw.rank;
  }
  // Walk out in storage order: sort dims by |out stride|, largest first.
  for (int i = 1; i < raw.rank; ++i)
    for (int j = i; j > 0; --j) {
      const int64_t x = raw.st[0][j - 1] < 0 ? -raw.st[0][j - 1] : raw.st[0][j - 1];
      const int64_t y = raw.st[0][j] < 0 ? -raw.st[0][j] : raw.st[0][j];
      if (x >= y) break;
      const int64_t ts = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = ts;
      for (int k = 0; k < kOperands; ++k) { const int64_t v = raw.st[k][j]; raw.st[k][j] = raw.st[k][j - 1]; raw.st[k][j - 1] = v; }
    }
  // Fuse dim d into the previous one when every tensor steps over it by one row.
  sp.rank = 0;
  for (int d = 0; d < raw.rank; ++d) {
    if (sp.rank > 0) {
      const int p = sp.rank - 1;
      bool fuse = true;
      for (int k = 0; k < kOperands; ++k) fuse = fuse && sp.st[k][p] == raw.st[k][d] * raw.size[d];
      if (fuse) {
        sp.size[p] *= raw.size[d];
        for (int k = 0; k < kOperands; ++k) sp.st[k][p] = raw.st[k][d];
        continue;
      }
    }
    sp.size[sp.rank] = raw.size[d];
    for (int k = 0; k < kOperands; ++k) sp.st[k][sp.rank] = raw.st[k][d];
    ++sp.rank;
  }
  if (sp.rank == 0) {  // a single element
    sp.rank = 1;
    sp.size[0] = 1;
    for (int k = 0; k < kOperands; ++k) sp.st[k][0] = 0;
  }
  return true;
}

// ---- rows -------------------------------------------------------------------
// One row of n elements: element i of operand k at o[k].data + i * s[k] elements.
template <typename C>
void row(const Operand* o, const int64_t* s, int64_t n, const Params<C>& prm) {
  const int32_t nat = native_dtype<C>();
  bool direct = true;
  for (int k = 0; k < kOperands; ++k) direct = direct && o[k].dtype == nat;
  if (direct) {
    C* out = reinterpret_cast<C*>(o[0].data);
    const C* a = reinterpret_cast<const C*>(o[1].data);
    if (s[0] == 1 && s[1] == 1) {
      for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], prm);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i * s[0]] = op(a[i * s[1]], prm);
    }
    return;
  }
  C va[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int m = static_cast<int>(n - start < kBlock ? n - start : kBlock);
    load_block(o[1].data + start * s[1] * o[1].elem, o[1].dtype, s[1], m, va);
    for (int i = 0; i < m; ++i) va[i] = op(va[i], prm);
    store_block(va, o[0].data + start * s[0] * o[0].elem, o[0].dtype, s[0], m);
  }
}

// Splits the space into (outer index, chunk of the innermost dim) work items.
template <typename C>
void run(const Space& sp, const Operand* base, const Params<C>& prm) {
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
    int64_t off[kOperands];
    for (int k = 0; k < kOperands; ++k) off[k] = begin * sp.st[k][last];
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rem % sp.size[d];
      rem /= sp.size[d];
      for (int k = 0; k < kOperands; ++k) off[k] += i * sp.st[k][d];
    }
    Operand o[kOperands];
    int64_t s[kOperands];
    for (int k = 0; k < kOperands; ++k) {
      o[k] = base[k];
      o[k].data += off[k] * base[k].elem;
      s[k] = sp.st[k][last];
    }
    row(o, s, inner - begin < kChunk ? inner - begin : kChunk, prm);
  }
}

Operand operand(const kgb_tensor* t) {
  return Operand{static_cast<char*>(t->data), t->dtype, kgb_dtype_size(t->dtype)};
}

// Checks dtypes and shapes, then computes in C.
template <typename C>
int compute(const kgb_tensor* const* t, const Params<C>& prm) {
  for (int k = 0; k < kOperands; ++k)
    if (!supported(t[k]->dtype)) return KGB_ERR_UNSUPPORTED;
  Space sp;
  if (!build_space(t, sp)) return KGB_ERR_INVALID;
  if (kgb_numel(t[0]) == 0) return KGB_OK;
  Operand base[kOperands];
  for (int k = 0; k < kOperands; ++k) base[k] = operand(t[k]);
  run<C>(sp, base, prm);
  return KGB_OK;
}

// The compute type follows out's dtype.
int dispatch(const kgb_tensor* const* t) {
  switch (t[0]->dtype) {
    case KGB_F32: case KGB_F16: case KGB_BF16:
      return compute<float>(t, Params<float>{});
    case KGB_F64:
      return compute<double>(t, Params<double>{});
    case KGB_I64: case KGB_I32:
      return compute<int64_t>(t, Params<int64_t>{});
    default:
      return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_aten_floor(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const kgb_tensor* t[kOperands] = {out, self};
  return dispatch(t);
}
