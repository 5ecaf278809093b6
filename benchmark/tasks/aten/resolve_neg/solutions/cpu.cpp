// aten/resolve_neg on the CPU.
//
// No neg bit: ATen returns self, so out becomes self's view (flags carried)
// and nothing runs. Neg bit set: out gets the logical values. For floating
// and complex dtypes they are exact sign-bit flips of the stored ones (every
// part's sign; with a conj bit as well only the real part's), so the copy is
// an XOR with a per-element mask; i64 negates in two's complement. The
// elements move from self's view into out's layout (self's strides when
// dense, else row-major): the dims of both views are put in out's order and
// folded, then
//  - both innermost strides 1: plain loops over rows (one row when out has
//    self's strides), vectorised by the compiler, rows in parallel;
//  - out's innermost stride 1 and self's stride 1 on another dim (a
//    transpose): 32 x 32 tiles read along self's stride-1 dim;
//  - otherwise strided loops per row.
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

struct Plan {
  int rank = 0;
  int64_t size[KGB_MAX_RANK];
  int64_t src[KGB_MAX_RANK];
  int64_t dst[KGB_MAX_RANK];
};

struct Bytes16 {
  uint64_t lo, hi;
};
inline Bytes16 operator^(Bytes16 a, Bytes16 b) { return {a.lo ^ b.lo, a.hi ^ b.hi}; }

template <typename E>
struct FlipSigns {  // floating and complex parts: XOR their sign bits
  E mask;
  E operator()(E v) const { return v ^ mask; }
};
struct NegateI64 {  // two's complement, wrapping
  uint64_t operator()(uint64_t v) const { return 0 - v; }
};

Plan fold(const kgb_tensor* from, const kgb_tensor* to) {
  int order[KGB_MAX_RANK], n = 0;
  for (int d = 0; d < to->rank; ++d)
    if (to->sizes[d] != 1) order[n++] = d;
  for (int i = 1; i < n; ++i)  // out's strides descending, stable
    for (int j = i; j > 0 && to->strides[order[j]] > to->strides[order[j - 1]]; --j) {
      const int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  Plan p;
  for (int i = 0; i < n; ++i) {
    const int d = order[i];
    const int64_t size = to->sizes[d], s = from->strides[d], o = to->strides[d];
    if (p.rank > 0 && p.src[p.rank - 1] == s * size && p.dst[p.rank - 1] == o * size) {
      p.size[p.rank - 1] *= size;
      p.src[p.rank - 1] = s;
      p.dst[p.rank - 1] = o;
      continue;
    }
    p.size[p.rank] = size;
    p.src[p.rank] = s;
    p.dst[p.rank] = o;
    ++p.rank;
  }
  if (p.rank == 0) {
    p.size[0] = 1;
    p.src[0] = p.dst[0] = 0;
    p.rank = 1;
  }
  return p;
}

void outer_offsets(const Plan& p, int n, int skip, int64_t index, int64_t* s, int64_t* o) {
  int64_t a = 0, b = 0;
  for (int d = n - 1; d >= 0; --d) {
    if (d == skip) continue;
    const int64_t i = index % p.size[d];
    index /= p.size[d];
    a += i * p.src[d];
    b += i * p.dst[d];
  }
  *s = a;
  *o = b;
}

template <typename E, typename Op>
void flip_rows(const E* src, E* dst, const Plan& p, Op op) {
  const int last = p.rank - 1;
  const int64_t len = p.size[last], si = p.src[last], di = p.dst[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.size[d];
  // One long row (a dense view): split it so every core gets a share.
  const int64_t chunk = rows == 1 ? 16384 : len, chunks = (len + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (rows * len > 32768)
  for (int64_t w = 0; w < rows * chunks; ++w) {
    const int64_t r = w / chunks, k0 = (w % chunks) * chunk, k1 = k0 + chunk < len ? k0 + chunk : len;
    int64_t s, o;
    outer_offsets(p, last, -1, r, &s, &o);
    const E* from = src + s;
    E* to = dst + o;
    if (si == 1 && di == 1) {
      for (int64_t k = k0; k < k1; ++k) to[k] = op(from[k]);
    } else {
      for (int64_t k = k0; k < k1; ++k) to[k * di] = op(from[k * si]);
    }
  }
}

template <typename E, typename Op>
void flip_transposed(const E* src, E* dst, const Plan& p, int a, Op op) {
  constexpr int64_t kTile = 32;
  const int last = p.rank - 1;
  const int64_t na = p.size[a], nl = p.size[last], sl = p.src[last], da = p.dst[a];
  int64_t batches = 1;
  for (int d = 0; d < last; ++d)
    if (d != a) batches *= p.size[d];
  const int64_t tiles_a = (na + kTile - 1) / kTile, tiles_l = (nl + kTile - 1) / kTile;
  const int64_t work = batches * tiles_a * tiles_l;
#pragma omp parallel for schedule(static) if (batches * na * nl > 32768)
  for (int64_t w = 0; w < work; ++w) {
    const int64_t tl = w % tiles_l, ta = (w / tiles_l) % tiles_a;
    int64_t s, o;
    outer_offsets(p, last, a, w / (tiles_l * tiles_a), &s, &o);
    const int64_t a0 = ta * kTile, a1 = a0 + kTile < na ? a0 + kTile : na;
    const int64_t l0 = tl * kTile, l1 = l0 + kTile < nl ? l0 + kTile : nl;
    for (int64_t l = l0; l < l1; ++l) {
      const E* from = src + s + l * sl;
      E* to = dst + o + l;
      for (int64_t i = a0; i < a1; ++i) to[i * da] = op(from[i]);
    }
  }
}

template <typename E, typename Op>
void flip(const void* src, void* dst, const Plan& p, Op op) {
  const E* s = static_cast<const E*>(src);
  E* d = static_cast<E*>(dst);
  const int last = p.rank - 1;
  if (p.dst[last] == 1 && p.src[last] != 1)
    for (int a = last - 1; a >= 0; --a)
      if (p.src[a] == 1 && p.size[a] >= 8) {
        flip_transposed(s, d, p, a, op);
        return;
      }
  flip_rows(s, d, p, op);
}

}  // namespace

extern "C" int kgb_aten_resolve_neg(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->rank != out->rank || self->dtype != out->dtype) return KGB_ERR_INVALID;
  if (!(self->flags & KGB_TENSOR_NEG)) {  // ATen returns self: out becomes the alias
    out->data = self->data;
    for (int d = 0; d < self->rank; ++d) {
      out->sizes[d] = self->sizes[d];
      out->strides[d] = self->strides[d];
    }
    out->storage_offset = self->storage_offset;
    out->flags = self->flags;
    return KGB_OK;
  }
  if (kgb_numel(self) == 0) return KGB_OK;
  const bool conj = (self->flags & KGB_TENSOR_CONJ) != 0;
  const Plan p = fold(self, out);
  const uint64_t sign64 = 0x8000000000000000ull;
  switch (self->dtype) {
    case KGB_F16: case KGB_BF16: flip<uint16_t>(self->data, out->data, p, FlipSigns<uint16_t>{0x8000}); return KGB_OK;
    case KGB_F32: flip<uint32_t>(self->data, out->data, p, FlipSigns<uint32_t>{0x80000000u}); return KGB_OK;
    case KGB_F64: flip<uint64_t>(self->data, out->data, p, FlipSigns<uint64_t>{sign64}); return KGB_OK;
    case KGB_I64: flip<uint64_t>(self->data, out->data, p, NegateI64{}); return KGB_OK;
    case KGB_C64:  // little-endian: re in the low 32 bits, im in the high; conj + neg flips re only
      flip<uint64_t>(self->data, out->data, p, FlipSigns<uint64_t>{conj ? 0x80000000ull : 0x8000000080000000ull});
      return KGB_OK;
    case KGB_C128:
      flip<Bytes16>(self->data, out->data, p, FlipSigns<Bytes16>{Bytes16{sign64, conj ? 0 : sign64}});
      return KGB_OK;
    default: return KGB_ERR_UNSUPPORTED;
  }
}
