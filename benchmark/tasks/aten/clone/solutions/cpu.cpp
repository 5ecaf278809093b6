// aten/clone on the CPU: out[i] = self[i] bit for bit, out in its own layout
// (self's strides when self is dense, row-major otherwise).
//
// The dims of both views are put in out's order (largest out stride first,
// size-1 dims dropped) and folded where both views are contiguous across
// them: when out has self's strides everything folds into one block, copied
// with memcpy in parallel chunks. Otherwise out is written row by row (a row
// = its innermost dim), all over OpenMP:
//  - both innermost strides 1: one memcpy per row;
//  - out's innermost stride 1 and another dim of self with stride 1 (a
//    transpose): 32 x 32 tiles, read along self's stride-1 dim;
//  - otherwise a strided loop per row.
// Only the element size (1-16 bytes) matters.
#include <stdint.h>
#include <string.h>

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

Plan fold(const kgb_tensor* from, const kgb_tensor* to) {
  int order[KGB_MAX_RANK], n = 0;
  for (int d = 0; d < to->rank; ++d)
    if (to->sizes[d] != 1) order[n++] = d;
  for (int i = 1; i < n; ++i)  // insertion sort: out's strides descending, stable
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
  if (p.rank == 0) {  // one element
    p.size[0] = 1;
    p.src[0] = p.dst[0] = 0;
    p.rank = 1;
  }
  return p;
}

// Offsets of outer index `index` over the first n dims, skipping dim `skip`.
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

template <typename E>
void copy_rows(const E* src, E* dst, const Plan& p) {
  const int last = p.rank - 1;
  const int64_t len = p.size[last], si = p.src[last], di = p.dst[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.size[d];
  if (rows == 1 && si == 1 && di == 1) {  // one block: parallel memcpy chunks
    const int64_t chunk = 1 << 16;
#pragma omp parallel for schedule(static) if (len > 4 * chunk)
    for (int64_t c = 0; c < len; c += chunk)
      memcpy(dst + c, src + c, static_cast<size_t>(len - c < chunk ? len - c : chunk) * sizeof(E));
    return;
  }
#pragma omp parallel for schedule(static) if (rows * len > 32768)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t s, o;
    outer_offsets(p, last, -1, r, &s, &o);
    const E* from = src + s;
    E* to = dst + o;
    if (si == 1 && di == 1) {
      memcpy(to, from, static_cast<size_t>(len) * sizeof(E));
    } else {
      for (int64_t k = 0; k < len; ++k) to[k * di] = from[k * si];
    }
  }
}

// Out's innermost stride is 1 and dim a of self has stride 1.
template <typename E>
void copy_transposed(const E* src, E* dst, const Plan& p, int a) {
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
    for (int64_t l = l0; l < l1; ++l) {  // reads run along a (stride 1 in self)
      const E* from = src + s + l * sl;
      E* to = dst + o + l;
      for (int64_t i = a0; i < a1; ++i) to[i * da] = from[i];
    }
  }
}

template <typename E>
void copy_plan(const void* src, void* dst, const Plan& p) {
  const E* s = static_cast<const E*>(src);
  E* d = static_cast<E*>(dst);
  const int last = p.rank - 1;
  if (p.dst[last] == 1 && p.src[last] != 1)
    for (int a = last - 1; a >= 0; --a)
      if (p.src[a] == 1 && p.size[a] >= 8) {
        copy_transposed(s, d, p, a);
        return;
      }
  copy_rows(s, d, p);
}

}  // namespace

extern "C" int kgb_aten_clone(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  if (self->rank != out->rank || self->dtype != out->dtype) return KGB_ERR_INVALID;
  for (int d = 0; d < self->rank; ++d)
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
  if (kgb_numel(self) == 0) return KGB_OK;
  const Plan p = fold(self, out);
  switch (kgb_dtype_size(self->dtype)) {
    case 1: copy_plan<uint8_t>(self->data, out->data, p); break;
    case 2: copy_plan<uint16_t>(self->data, out->data, p); break;
    case 4: copy_plan<uint32_t>(self->data, out->data, p); break;
    case 8: copy_plan<uint64_t>(self->data, out->data, p); break;
    case 16: copy_plan<Bytes16>(self->data, out->data, p); break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  return KGB_OK;
}
