// aten/sort on the CPU.
// Every element is mapped to an unsigned key whose integer order is PyTorch's
// order (floats: sign-magnitude flip, NaNs canonicalised above +inf, -0 folded
// into +0; integers: sign bit flipped; descending: keys complemented). Each
// slice is then sorted as (key, index) pairs: insertion sort for short slices,
// otherwise an LSD radix sort on bytes that skips byte positions where all
// keys agree. Values are copied from the source by index, bit for bit.
// Slices are distributed over OpenMP threads, each with its own scratch.
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

// S: raw storage of the element, U: the sort key.
struct KeyF32 {
  using S = uint32_t; using U = uint32_t;
  static U key(S u) {
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) u = 0x7FC00000u;  // every NaN is the largest value
    if (u == 0x80000000u) u = 0;                           // -0 == +0
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
};
struct KeyF64 {
  using S = uint64_t; using U = uint64_t;
  static U key(S u) {
    const uint64_t sign = 0x8000000000000000ull;
    if ((u & ~sign) > 0x7FF0000000000000ull) u = 0x7FF8000000000000ull;
    if (u == sign) u = 0;
    return (u & sign) ? ~u : (u | sign);
  }
};
struct KeyF16 {
  using S = uint16_t; using U = uint16_t;
  static U key(S u) {
    if ((u & 0x7FFFu) > 0x7C00u) u = 0x7E00u;
    if (u == 0x8000u) u = 0;
    return static_cast<U>((u & 0x8000u) ? ~u : (u | 0x8000u));
  }
};
struct KeyBF16 {
  using S = uint16_t; using U = uint16_t;
  static U key(S u) {
    if ((u & 0x7FFFu) > 0x7F80u) u = 0x7FC0u;
    if (u == 0x8000u) u = 0;
    return static_cast<U>((u & 0x8000u) ? ~u : (u | 0x8000u));
  }
};
struct KeyI32 {
  using S = uint32_t; using U = uint32_t;
  static U key(S u) { return u ^ 0x80000000u; }
};
struct KeyI64 {
  using S = uint64_t; using U = uint64_t;
  static U key(S u) { return u ^ 0x8000000000000000ull; }
};

// Stable insertion sort of (key, index) pairs.
template <typename U>
void insertion_sort(U* k, uint32_t* ix, int64_t n) {
  for (int64_t i = 1; i < n; ++i) {
    const U kv = k[i];
    const uint32_t iv = ix[i];
    int64_t j = i;
    for (; j > 0 && k[j - 1] > kv; --j) {
      k[j] = k[j - 1];
      ix[j] = ix[j - 1];
    }
    k[j] = kv;
    ix[j] = iv;
  }
}

// LSD radix sort on bytes; the result ends in either buffer pair, returned
// through k/ix.
template <typename U>
void radix_sort(U*& k, uint32_t*& ix, U* kt, uint32_t* it, int64_t n) {
  constexpr int P = sizeof(U);
  uint32_t count[P][256];
  memset(count, 0, sizeof(count));
  for (int64_t i = 0; i < n; ++i) {
    const U v = k[i];
    for (int p = 0; p < P; ++p) ++count[p][(v >> (8 * p)) & 0xFF];
  }
  U* ka = k; uint32_t* ia = ix;
  U* kb = kt; uint32_t* ib = it;
  for (int p = 0; p < P; ++p) {
    const int first = static_cast<int>((ka[0] >> (8 * p)) & 0xFF);
    if (count[p][first] == static_cast<uint32_t>(n)) continue;  // this byte is the same everywhere
    uint32_t offset[256];
    uint32_t run = 0;
    for (int b = 0; b < 256; ++b) {
      offset[b] = run;
      run += count[p][b];
    }
    for (int64_t i = 0; i < n; ++i) {
      const U v = ka[i];
      const uint32_t pos = offset[(v >> (8 * p)) & 0xFF]++;
      kb[pos] = v;
      ib[pos] = ia[i];
    }
    U* tk = ka; ka = kb; kb = tk;
    uint32_t* ti = ia; ia = ib; ib = ti;
  }
  k = ka;
  ix = ia;
}

// ---- geometry: outer x len x inner, three tensors -----------------------------
struct Geometry {
  int64_t outer = 1, len = 1, inner = 1;
  int nouter = 0;
  int64_t osize[KGB_MAX_RANK], ostride[3][KGB_MAX_RANK];
  int64_t s[3] = {0, 0, 0};        // strides along dim: self, values, indices
  std::vector<int64_t> in[3];      // offsets of the inner positions

  void slice_offsets(int64_t slice, int64_t* off) const {
    int64_t o = slice / inner;
    const int64_t i = slice % inner;
    for (int t = 0; t < 3; ++t) off[t] = inner > 1 ? in[t][static_cast<size_t>(i)] : 0;
    for (int d = nouter - 1; d >= 0; --d) {
      const int64_t j = o % osize[d];
      o /= osize[d];
      for (int t = 0; t < 3; ++t) off[t] += j * ostride[t][d];
    }
  }
};

void build_geometry(const kgb_tensor* const* t, int dim, Geometry& g) {
  const kgb_tensor* x = t[0];
  for (int d = 0; d < dim; ++d) {
    g.osize[g.nouter] = x->sizes[d];
    for (int k = 0; k < 3; ++k) g.ostride[k][g.nouter] = t[k]->strides[d];
    ++g.nouter;
    g.outer *= x->sizes[d];
  }
  if (x->rank > 0) {
    g.len = x->sizes[dim];
    for (int k = 0; k < 3; ++k) g.s[k] = t[k]->strides[dim];
  }
  for (int d = dim + 1; d < x->rank; ++d) g.inner *= x->sizes[d];
  if (g.inner <= 1) return;
  for (int k = 0; k < 3; ++k) g.in[k].assign(static_cast<size_t>(g.inner), 0);
  int64_t idx[KGB_MAX_RANK] = {0};
  int64_t a[3] = {0, 0, 0};
  for (int64_t i = 0; i < g.inner; ++i) {
    for (int k = 0; k < 3; ++k) g.in[k][static_cast<size_t>(i)] = a[k];
    for (int d = x->rank - 1; d > dim; --d) {  // odometer over the inner dims
      for (int k = 0; k < 3; ++k) a[k] += t[k]->strides[d];
      if (++idx[d] < x->sizes[d]) break;
      for (int k = 0; k < 3; ++k) a[k] -= t[k]->strides[d] * x->sizes[d];
      idx[d] = 0;
    }
  }
}

template <typename K>
void run(const Geometry& g, const kgb_tensor* self, kgb_tensor* values, kgb_tensor* indices, bool descending) {
  using S = typename K::S;
  using U = typename K::U;
  const S* x = static_cast<const S*>(self->data);
  S* v = static_cast<S*>(values->data);
  int64_t* ind = static_cast<int64_t*>(indices->data);
  const int64_t slices = g.outer * g.inner, n = g.len;
  const U flip = descending ? static_cast<U>(~U(0)) : U(0);  // complemented keys sort descending
#pragma omp parallel if (slices * n > 8192)
  {
    std::vector<U> keys(static_cast<size_t>(2 * n));
    std::vector<uint32_t> order(static_cast<size_t>(2 * n));
#pragma omp for schedule(static)
    for (int64_t sl = 0; sl < slices; ++sl) {
      int64_t off[3];
      g.slice_offsets(sl, off);
      const S* src = x + off[0];
      S* vdst = v + off[1];
      int64_t* idst = ind + off[2];
      U* k = keys.data();
      uint32_t* ix = order.data();
      const int64_t xs = g.s[0], vs = g.s[1], is = g.s[2];
      for (int64_t i = 0; i < n; ++i) {
        k[i] = static_cast<U>(K::key(src[i * xs]) ^ flip);
        ix[i] = static_cast<uint32_t>(i);
      }
      if (n <= 48) insertion_sort(k, ix, n);
      else radix_sort(k, ix, keys.data() + n, order.data() + n, n);
      for (int64_t i = 0; i < n; ++i) {
        const uint32_t j = ix[i];
        vdst[i * vs] = src[static_cast<int64_t>(j) * xs];
        idst[i * is] = j;
      }
    }
  }
}

}  // namespace

extern "C" int kgb_aten_sort(const kgb_tensor* self, int64_t dim, int descending, kgb_tensor* values,
                             kgb_tensor* indices, kgb_stream stream) {
  (void)stream;
  if (values->dtype != self->dtype || indices->dtype != KGB_I64) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if (values->rank != rank || indices->rank != rank) return KGB_ERR_INVALID;
  for (int d = 0; d < rank; ++d)
    if (values->sizes[d] != self->sizes[d] || indices->sizes[d] != self->sizes[d]) return KGB_ERR_INVALID;
  const int64_t nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (kgb_numel(self) == 0) return KGB_OK;
  const kgb_tensor* t[3] = {self, values, indices};
  Geometry g;
  build_geometry(t, static_cast<int>(dim), g);
  if (g.len > static_cast<int64_t>(UINT32_MAX)) return KGB_ERR_UNSUPPORTED;  // 32-bit positions inside a slice
  const bool desc = descending != 0;
  switch (self->dtype) {
    case KGB_F32: run<KeyF32>(g, self, values, indices, desc); break;
    case KGB_F64: run<KeyF64>(g, self, values, indices, desc); break;
    case KGB_F16: run<KeyF16>(g, self, values, indices, desc); break;
    case KGB_BF16: run<KeyBF16>(g, self, values, indices, desc); break;
    case KGB_I32: run<KeyI32>(g, self, values, indices, desc); break;
    case KGB_I64: run<KeyI64>(g, self, values, indices, desc); break;
  }
  return KGB_OK;
}
