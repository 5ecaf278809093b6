// aten/scatter on the CPU: the four overloads (src, value, reduce,
// value_reduce) share one engine.
//
// 1. out = self: a strided copy whose dimensions are merged where both
//    layouts allow it (a dense pair is one memcpy per chunk), chunks spread
//    over the cores.
// 2. The scatter. Two positions of index can only name the same element of
//    out if they differ in nothing but their dim coordinate. So the work is
//    cut into tiles that own whole lines along dim: every coordinate except
//    dim (and, when dim is not the last dimension, a chunk of the last one).
//    Inside a tile the positions along dim run in order, one after another,
//    and the last dimension runs innermost over distinct out elements. Tiles
//    never share an out element: reductions need no atomics and every run
//    gives the same bits. 16-bit floats are combined in float and rounded
//    after each update (as ATen's CPU kernel does); integers wrap.
#include <stdint.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

enum class Mode { Set, Add, Multiply };

// Element load/store in the arithmetic type of T (float for 16-bit floats).
template <int DT> struct Traits;
template <> struct Traits<KGB_F32> { using S = float; using A = float; static A load(S v) { return v; } static S store(A v) { return v; } };
template <> struct Traits<KGB_F64> { using S = double; using A = double; static A load(S v) { return v; } static S store(A v) { return v; } };
template <> struct Traits<KGB_F16> {
  using S = uint16_t; using A = float;
  static A load(S v) { return kgb_f16_to_float(v); }
  static S store(A v) { return kgb_float_to_f16(v); }
};
template <> struct Traits<KGB_BF16> {
  using S = uint16_t; using A = float;
  static A load(S v) { return kgb_bf16_to_float(v); }
  static S store(A v) { return kgb_float_to_bf16(v); }
};
// Integers combine in the unsigned type of their width, so sums and products wrap.
template <> struct Traits<KGB_I32> {
  using S = int32_t; using A = uint32_t;
  static A load(S v) { return static_cast<A>(v); }
  static S store(A v) { return static_cast<S>(v); }
};
template <> struct Traits<KGB_I64> {
  using S = int64_t; using A = uint64_t;
  static A load(S v) { return static_cast<A>(v); }
  static S store(A v) { return static_cast<S>(v); }
};

// Sizes of index (the iteration space) and the strides of index, src and
// out over it; out's stride along dim is applied to the index value instead.
struct Geometry {
  int rank = 1, dim = 0;
  int64_t size[KGB_MAX_RANK] = {1};
  int64_t is[KGB_MAX_RANK] = {0}, ss[KGB_MAX_RANK] = {0}, os[KGB_MAX_RANK] = {0};
  int64_t len = 1;  // size(self, dim)
};

// out = self over self's shape.
template <typename S>
void copy_self(const kgb_tensor* self, kgb_tensor* out) {
  int n = 0;
  int64_t size[KGB_MAX_RANK], a[KGB_MAX_RANK], b[KGB_MAX_RANK];
  for (int d = 0; d < self->rank; ++d) {
    const int64_t sz = self->sizes[d];
    if (sz == 1) continue;
    if (n > 0 && a[n - 1] == out->strides[d] * sz && b[n - 1] == self->strides[d] * sz) {
      size[n - 1] *= sz;
      a[n - 1] = out->strides[d];
      b[n - 1] = self->strides[d];
      continue;
    }
    size[n] = sz;
    a[n] = out->strides[d];
    b[n] = self->strides[d];
    ++n;
  }
  const int64_t len = n ? size[n - 1] : 1, da = n ? a[n - 1] : 1, db = n ? b[n - 1] : 1;
  int64_t rows = 1;
  for (int d = 0; d + 1 < n; ++d) rows *= size[d];
  const int64_t kChunk = 16384, chunks = (len + kChunk - 1) / kChunk;
  S* y = static_cast<S*>(out->data);
  const S* x = static_cast<const S*>(self->data);
#pragma omp parallel for schedule(static) if (rows * len > 65536)
  for (int64_t t = 0; t < rows * chunks; ++t) {
    int64_t r = t / chunks, oa = 0, ob = 0;
    for (int d = n - 2; d >= 0; --d) {
      const int64_t c = r % size[d];
      r /= size[d];
      oa += c * a[d];
      ob += c * b[d];
    }
    const int64_t j0 = (t % chunks) * kChunk, m = len - j0 < kChunk ? len - j0 : kChunk;
    S* __restrict dst = y + oa + j0 * da;
    const S* __restrict src = x + ob + j0 * db;
    if (da == 1 && db == 1) memcpy(dst, src, static_cast<size_t>(m) * sizeof(S));
    else for (int64_t j = 0; j < m; ++j) dst[j * da] = src[j * db];
  }
}

// One update of out element `o` with the value v (already in the arithmetic type).
template <int DT, Mode M>
inline void apply(typename Traits<DT>::S* o, typename Traits<DT>::A v) {
  using Tr = Traits<DT>;
  if (M == Mode::Set) *o = Tr::store(v);
  else if (M == Mode::Add) *o = Tr::store(Tr::load(*o) + v);
  else *o = Tr::store(Tr::load(*o) * v);
}

// src == nullptr: the scalar `value` is sent instead.
template <int DT, Mode M>
int scatter(const Geometry& g, const int64_t* index, const typename Traits<DT>::S* src, typename Traits<DT>::A value,
            typename Traits<DT>::S* out, int64_t out_dim_stride) {
  using Tr = Traits<DT>;
  const int last = g.rank - 1;
  const bool dim_last = g.dim == last;
  // Tile = every coordinate but dim and (unless dim is last) the last one, times a chunk of the last.
  const int64_t J = dim_last ? 1 : g.size[last];
  const int64_t K = g.size[g.dim];
  const int64_t kChunk = 4096, chunks = (J + kChunk - 1) / kChunk;
  int64_t tiles = 1;
  for (int d = 0; d < g.rank; ++d)
    if (d != g.dim && (dim_last || d != last)) tiles *= g.size[d];
  const int64_t jis = dim_last ? 0 : g.is[last], jss = dim_last ? 0 : g.ss[last], jos = dim_last ? 0 : g.os[last];
  const int64_t kis = g.is[g.dim], kss = g.ss[g.dim];
  const uint64_t len = static_cast<uint64_t>(g.len);
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (tiles * chunks > 1 && tiles * J * K > 32768)
  for (int64_t t = 0; t < tiles * chunks; ++t) {
    int64_t r = t / chunks, io = 0, so = 0, oo = 0;
    for (int d = last; d >= 0; --d) {
      if (d == g.dim || (!dim_last && d == last)) continue;
      const int64_t c = r % g.size[d];
      r /= g.size[d];
      io += c * g.is[d];
      so += c * g.ss[d];
      oo += c * g.os[d];
    }
    const int64_t j0 = (t % chunks) * kChunk, n = J - j0 < kChunk ? J - j0 : kChunk;
    io += j0 * jis;
    so += j0 * jss;
    oo += j0 * jos;
    for (int64_t k = 0; k < K; ++k) {
      const int64_t* __restrict ix = index + io + k * kis;
      const typename Tr::S* __restrict sx = src ? src + so + k * kss : nullptr;
      typename Tr::S* o = out + oo;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t v = ix[j * jis];
        if (static_cast<uint64_t>(v) >= len) {
          bad = 1;
          continue;
        }
        typename Tr::S* target = o + v * out_dim_stride + j * jos;
        if (M == Mode::Set && sx) *target = sx[j * jss];  // a bit-for-bit copy
        else apply<DT, M>(target, sx ? Tr::load(sx[j * jss]) : value);
      }
    }
  }
  return bad ? KGB_ERR_INVALID : KGB_OK;
}

// Checks the arguments and fills the geometry; KGB_ERR_INVALID for what ATen rejects.
int plan(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src, const kgb_tensor* out,
         Geometry& g, int64_t* out_dim_stride) {
  const int rank = self->rank;
  if (index->dtype != KGB_I64 || out->dtype != self->dtype || out->rank != rank || index->rank != rank) return KGB_ERR_INVALID;
  if (src && (src->dtype != self->dtype || src->rank != rank)) return KGB_ERR_INVALID;
  const int nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  g.dim = static_cast<int>(dim);
  *out_dim_stride = 0;
  if (rank == 0) return KGB_OK;
  g.rank = rank;
  for (int d = 0; d < rank; ++d) {
    if (out->sizes[d] != self->sizes[d]) return KGB_ERR_INVALID;
    if (d != g.dim && index->sizes[d] > self->sizes[d]) return KGB_ERR_INVALID;
    if (src && index->sizes[d] > src->sizes[d]) return KGB_ERR_INVALID;
    g.size[d] = index->sizes[d];
    g.is[d] = index->strides[d];
    g.ss[d] = src ? src->strides[d] : 0;
    g.os[d] = d == g.dim ? 0 : out->strides[d];
  }
  g.len = self->sizes[g.dim];
  *out_dim_stride = out->strides[g.dim];
  return KGB_OK;
}

template <int DT>
int run_typed(const kgb_tensor* self, const kgb_tensor* index, const kgb_tensor* src, kgb_scalar value, Mode mode,
              const Geometry& g, int64_t out_dim_stride, kgb_tensor* out) {
  using Tr = Traits<DT>;
  using S = typename Tr::S;
  copy_self<S>(self, out);
  int64_t n = 1;
  for (int d = 0; d < g.rank; ++d) n *= g.size[d];
  if (n == 0 || kgb_numel(out) == 0) return KGB_OK;
  // The scalar in T's arithmetic type: a cast, as ATen's value.to<T>() does.
  typename Tr::A v{};
  if (!src) {
    if constexpr (DT == KGB_F16 || DT == KGB_BF16 || DT == KGB_F32)
      v = Tr::load(Tr::store(value.dtype == KGB_F64 ? static_cast<float>(value.v.f) : static_cast<float>(value.v.i)));
    else if constexpr (DT == KGB_F64)
      v = value.dtype == KGB_F64 ? value.v.f : static_cast<double>(value.v.i);
    else
      v = Tr::load(static_cast<S>(value.dtype == KGB_F64 ? static_cast<int64_t>(value.v.f) : value.v.i));
  }
  const int64_t* ix = static_cast<const int64_t*>(index->data);
  const S* sx = src ? static_cast<const S*>(src->data) : nullptr;
  S* y = static_cast<S*>(out->data);
  switch (mode) {
    case Mode::Set: return scatter<DT, Mode::Set>(g, ix, sx, v, y, out_dim_stride);
    case Mode::Add: return scatter<DT, Mode::Add>(g, ix, sx, v, y, out_dim_stride);
    default: return scatter<DT, Mode::Multiply>(g, ix, sx, v, y, out_dim_stride);
  }
}

int run(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src, kgb_scalar value, Mode mode,
        kgb_tensor* out) {
  Geometry g;
  int64_t out_dim_stride = 0;
  if (const int s = plan(self, dim, index, src, out, g, &out_dim_stride); s != KGB_OK) return s;
  switch (self->dtype) {
    case KGB_F32: return run_typed<KGB_F32>(self, index, src, value, mode, g, out_dim_stride, out);
    case KGB_F64: return run_typed<KGB_F64>(self, index, src, value, mode, g, out_dim_stride, out);
    case KGB_F16: return run_typed<KGB_F16>(self, index, src, value, mode, g, out_dim_stride, out);
    case KGB_BF16: return run_typed<KGB_BF16>(self, index, src, value, mode, g, out_dim_stride, out);
    case KGB_I32: return run_typed<KGB_I32>(self, index, src, value, mode, g, out_dim_stride, out);
    case KGB_I64: return run_typed<KGB_I64>(self, index, src, value, mode, g, out_dim_stride, out);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

Mode reduce_mode(int reduce) { return reduce == 0 ? Mode::Add : Mode::Multiply; }

}  // namespace

extern "C" int kgb_aten_scatter(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src,
                                kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  return run(self, dim, index, src, kgb_scalar{}, Mode::Set, out);
}

extern "C" int kgb_aten_scatter_value(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_scalar value,
                                      kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  return run(self, dim, index, nullptr, value, Mode::Set, out);
}

extern "C" int kgb_aten_scatter_reduce(const kgb_tensor* self, int64_t dim, const kgb_tensor* index,
                                       const kgb_tensor* src, int reduce, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (reduce != 0 && reduce != 1) return KGB_ERR_INVALID;
  return run(self, dim, index, src, kgb_scalar{}, reduce_mode(reduce), out);
}

extern "C" int kgb_aten_scatter_value_reduce(const kgb_tensor* self, int64_t dim, const kgb_tensor* index,
                                             kgb_scalar value, int reduce, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (reduce != 0 && reduce != 1) return KGB_ERR_INVALID;
  return run(self, dim, index, nullptr, value, reduce_mode(reduce), out);
}
