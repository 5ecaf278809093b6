// aten/rot90 on the CPU. A rotation is a copy of self read through another
// view: in out's index space self has out's sizes and, at d0 and d1, the
// strides of the other dim, one of them negated (k = 1: -stride(d1) at d0,
// stride(d0) at d1, starting at element (S1-1) of d1; k = 2: both dims
// reversed; k = 3: stride(d1) at d0, -stride(d0) at d1; k = 0: self as is).
// Elements move bit for bit, so the copy works on element sizes.
//
// The copy is simplified first (size-1 dims dropped, dims contiguous in both
// the source view and out merged, negative strides included), then:
// - when the dim that is innermost in out is also the source's densest dim
//   (k = 0, k = 2, or a plane that leaves the inner dim alone), rows are
//   copied as runs: memcpy for forward rows, a reversed loop the compiler
//   vectorises for k = 2;
// - otherwise (a quarter turn in the two inner dims is a transpose with one
//   dim reversed) the copy goes in 64 x 64 tiles of (source-dense dim,
//   out-dense dim), so reads and writes both use whole cache lines.
// Rows or tile strips are shared by the threads (OpenMP, static schedule).
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_kernel.h"

namespace {

constexpr int64_t kTile = 64;
constexpr int64_t kRowChunk = 16384;  // elements per work unit on the row path

struct Dim {
  int64_t size, vs, os;  // size, stride in the source view, stride in out
};

inline int64_t magnitude(int64_t v) { return v < 0 ? -v : v; }

// Offsets (source, out) of outer index `r` over dims `outer`, innermost last.
inline void outer_offsets(const std::vector<Dim>& outer, int64_t r, int64_t* so, int64_t* dof) {
  int64_t a = 0, b = 0;
  for (size_t d = outer.size(); d-- > 0;) {
    const int64_t q = r / outer[d].size;
    a += (r - q * outer[d].size) * outer[d].vs;
    b += (r - q * outer[d].size) * outer[d].os;
    r = q;
  }
  *so = a;
  *dof = b;
}

template <typename E>
void copy_rows(const E* src, E* dst, const std::vector<Dim>& outer, int64_t outer_count, const Dim& in) {
  const int64_t per = in.size >= kRowChunk ? 1 : kRowChunk / in.size;
  const int64_t units = (outer_count + per - 1) / per;
#pragma omp parallel for schedule(static) if (units > 1 && outer_count * in.size > 32768)
  for (int64_t u = 0; u < units; ++u) {
    const int64_t r1 = (u + 1) * per < outer_count ? (u + 1) * per : outer_count;
    for (int64_t r = u * per; r < r1; ++r) {
      int64_t so, dof;
      outer_offsets(outer, r, &so, &dof);
      const E* __restrict s = src + so;
      E* __restrict d = dst + dof;
      if (in.vs == 1 && in.os == 1) {
        memcpy(d, s, static_cast<size_t>(in.size) * sizeof(E));
      } else if (in.vs == -1 && in.os == 1) {
        for (int64_t j = 0; j < in.size; ++j) d[j] = s[-j];
      } else {
        for (int64_t j = 0; j < in.size; ++j) d[j * in.os] = s[j * in.vs];
      }
    }
  }
}

// Tiles over (p: the source's densest dim, i: out's densest dim).
template <typename E>
void copy_tiles(const E* src, E* dst, const std::vector<Dim>& outer, int64_t outer_count, const Dim& p, const Dim& i) {
  const int64_t strips = (p.size + kTile - 1) / kTile;
  const int64_t units = outer_count * strips;
#pragma omp parallel for schedule(static) if (units > 1 && outer_count * p.size * i.size > 32768)
  for (int64_t u = 0; u < units; ++u) {
    const int64_t r = u / strips, a0 = (u - r * strips) * kTile;
    const int64_t a1 = a0 + kTile < p.size ? a0 + kTile : p.size;
    int64_t so, dof;
    outer_offsets(outer, r, &so, &dof);
    for (int64_t b0 = 0; b0 < i.size; b0 += kTile) {
      const int64_t b1 = b0 + kTile < i.size ? b0 + kTile : i.size;
      for (int64_t a = a0; a < a1; ++a) {
        const E* __restrict s = src + so + a * p.vs;
        E* __restrict d = dst + dof + a * p.os;
        if (i.os == 1) {
          for (int64_t b = b0; b < b1; ++b) d[b] = s[b * i.vs];
        } else {
          for (int64_t b = b0; b < b1; ++b) d[b * i.os] = s[b * i.vs];
        }
      }
    }
  }
}

template <typename E>
void run(const E* src, E* dst, std::vector<Dim> dims) {
  // Out's densest dim i; the source's densest dim p among the others.
  size_t i = 0;
  for (size_t d = 1; d < dims.size(); ++d)
    if (magnitude(dims[d].os) <= magnitude(dims[i].os)) i = d;
  size_t p = dims.size();
  for (size_t d = 0; d < dims.size(); ++d)
    if (d != i && (p == dims.size() || magnitude(dims[d].vs) < magnitude(dims[p].vs))) p = d;
  std::vector<Dim> outer;
  int64_t outer_count = 1;
  if (p == dims.size() || magnitude(dims[i].vs) <= magnitude(dims[p].vs) || dims[i].size < 8) {
    for (size_t d = 0; d < dims.size(); ++d)
      if (d != i) {
        outer.push_back(dims[d]);
        outer_count *= dims[d].size;
      }
    copy_rows<E>(src, dst, outer, outer_count, dims[i]);
    return;
  }
  for (size_t d = 0; d < dims.size(); ++d)
    if (d != i && d != p) {
      outer.push_back(dims[d]);
      outer_count *= dims[d].size;
    }
  copy_tiles<E>(src, dst, outer, outer_count, dims[p], dims[i]);
}

}  // namespace

extern "C" int kgb_aten_rot90(const kgb_tensor* self, int64_t k, kgb_int_list dims, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: case KGB_BOOL: case KGB_C64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  const int rank = self->rank;
  if (out->dtype != self->dtype || out->rank != rank || rank < 2 || dims.count != 2) return KGB_ERR_INVALID;
  int64_t a = dims.values[0], b = dims.values[1];
  if (a < -rank || a >= rank || b < -rank || b >= rank || a == b || a - b == rank || b - a == rank) return KGB_ERR_INVALID;
  const int d0 = static_cast<int>(a < 0 ? a + rank : a), d1 = static_cast<int>(b < 0 ? b + rank : b);
  const int turns = static_cast<int>(((k % 4) + 4) % 4);
  for (int d = 0; d < rank; ++d) {
    const int from = turns % 2 == 1 && d == d0 ? d1 : turns % 2 == 1 && d == d1 ? d0 : d;
    if (out->sizes[d] != self->sizes[from]) return KGB_ERR_INVALID;
  }
  if (kgb_numel(out) == 0) return KGB_OK;

  // self in out's index space.
  int64_t vs[KGB_MAX_RANK], base = 0;
  for (int d = 0; d < rank; ++d) vs[d] = self->strides[d];
  const int64_t s0 = self->sizes[d0], s1 = self->sizes[d1];
  const int64_t t0 = self->strides[d0], t1 = self->strides[d1];
  if (turns == 1) {
    vs[d0] = -t1, vs[d1] = t0, base = (s1 - 1) * t1;
  } else if (turns == 2) {
    vs[d0] = -t0, vs[d1] = -t1, base = (s0 - 1) * t0 + (s1 - 1) * t1;
  } else if (turns == 3) {
    vs[d0] = t1, vs[d1] = -t0, base = (s0 - 1) * t0;
  }
  // Simplify: drop size-1 dims, merge dims contiguous in both views.
  std::vector<Dim> merged;
  for (int d = 0; d < rank; ++d) {
    if (out->sizes[d] == 1) continue;
    const Dim next{out->sizes[d], vs[d], out->strides[d]};
    if (!merged.empty() && merged.back().vs == next.vs * next.size && merged.back().os == next.os * next.size) {
      merged.back() = {merged.back().size * next.size, next.vs, next.os};
      continue;
    }
    merged.push_back(next);
  }
  if (merged.empty()) merged.push_back({1, 1, 1});

  const int32_t elem = kgb_dtype_size(self->dtype);
  const char* src = static_cast<const char*>(self->data) + base * elem;
  char* dst = static_cast<char*>(out->data);
  switch (elem) {
    case 1: run<uint8_t>(reinterpret_cast<const uint8_t*>(src), reinterpret_cast<uint8_t*>(dst), merged); break;
    case 2: run<uint16_t>(reinterpret_cast<const uint16_t*>(src), reinterpret_cast<uint16_t*>(dst), merged); break;
    case 4: run<uint32_t>(reinterpret_cast<const uint32_t*>(src), reinterpret_cast<uint32_t*>(dst), merged); break;
    default: run<uint64_t>(reinterpret_cast<const uint64_t*>(src), reinterpret_cast<uint64_t*>(dst), merged); break;
  }
  return KGB_OK;
}
