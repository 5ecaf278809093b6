// aten/stack on the CPU: a bitwise copy of every item into its slice of out,
// so it works on element sizes (1, 2, 4, 8 bytes) rather than dtypes.
//
// All items have one shape, so their copies are planned together: the item
// dims are simplified once (size-1 dims dropped, neighbouring dims merged
// where they are contiguous in out's slice and in every item), which turns
// the common cases into a few long rows. A work piece is a block of rows (or
// part of one long row) of ~128 KiB of out, and it copies that block of
// EVERY item, so each piece writes one compact region of out: for the new
// dimension last (items interleaved element by element) that region is
// written completely while it is in the cache, instead of being visited once
// per item. Pieces are shared by all threads (OpenMP, dynamic schedule).
// Dense rows (dim not last) go through AVX-512/AVX2 copies with non-temporal
// stores once out exceeds the caches; interleaving rows of 2-4 dense items
// use fixed-count loops the compiler vectorises; anything else (transposed,
// stepped, padded items, strided out) is a strided element loop.
#include <stdint.h>
#include <string.h>

#include <vector>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "kgb_kernel.h"

namespace {

constexpr int64_t kPieceBytes = 128 * 1024;      // out bytes per piece
constexpr int64_t kStreamThreshold = 8ll << 20;  // out bytes from which stores bypass the caches

// The joint copy after simplification: rows of `len` elements; item k's row
// r starts at src[k] + row offset(r, k), its destination at
// out + k * item_step + row offset(r, out).
struct Plan {
  int n = 0;                         // items
  int outer = 0;                     // merged dims before the row dim
  int64_t osize[KGB_MAX_RANK] = {};  // their sizes, outermost first
  int64_t odst[KGB_MAX_RANK] = {};   // their strides in out (elements)
  std::vector<int64_t> osrc;         // their strides in item k: osrc[k * KGB_MAX_RANK + d]
  std::vector<const char*> src;      // items' data
  std::vector<int64_t> ss;           // items' strides along the row
  char* dst = nullptr;
  int64_t item_step = 0;             // out stride of the new dim (elements)
  int64_t ds = 1;                    // out stride along the row
  int64_t rows = 1, len = 1;
  bool dense = true;                 // every ss == 1 and ds == 1
  bool interleave = false;           // every ss == 1, ds == n, item_step == 1

  int64_t dst_row(int64_t r) const {
    int64_t b = 0;
    for (int d = outer - 1; d >= 0; --d) {
      const int64_t q = r / osize[d];
      b += (r - q * osize[d]) * odst[d];
      r = q;
    }
    return b;
  }
  int64_t src_row(int64_t r, int k) const {
    int64_t a = 0;
    const int64_t* s = &osrc[static_cast<size_t>(k) * KGB_MAX_RANK];
    for (int d = outer - 1; d >= 0; --d) {
      const int64_t q = r / osize[d];
      a += (r - q * osize[d]) * s[d];
      r = q;
    }
    return a;
  }
};

struct Piece {
  int64_t r0, r1, c0, c1;
};

// Merges the item dims jointly over out's slice and every item.
Plan plan_copy(const kgb_tensor_list* items, kgb_tensor* out, int dim) {
  Plan p;
  p.n = static_cast<int>(items->count);
  const kgb_tensor* first = items->items[0];
  const int rank = first->rank;
  int64_t dstride[KGB_MAX_RANK];
  for (int d = 0, o = 0; o < out->rank; ++o)
    if (o != dim) dstride[d++] = out->strides[o];
  p.item_step = out->strides[dim];
  p.dst = static_cast<char*>(out->data);
  // m[0] = out, m[1 + k] = item k: strides of the merged dims.
  std::vector<int64_t> sz(KGB_MAX_RANK), m(static_cast<size_t>(p.n + 1) * KGB_MAX_RANK);
  int kept = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = first->sizes[d];
    if (size == 1) continue;
    bool merge = kept > 0 && m[kept - 1] == dstride[d] * size;
    for (int k = 0; k < p.n && merge; ++k)
      merge = m[static_cast<size_t>(k + 1) * KGB_MAX_RANK + kept - 1] == items->items[k]->strides[d] * size;
    const int at = merge ? kept - 1 : kept++;
    sz[at] = merge ? sz[at] * size : size;
    m[at] = dstride[d];
    for (int k = 0; k < p.n; ++k) m[static_cast<size_t>(k + 1) * KGB_MAX_RANK + at] = items->items[k]->strides[d];
  }
  if (kept == 0) {  // single elements
    sz[0] = 1;
    for (size_t i = 0; i < m.size(); i += KGB_MAX_RANK) m[i] = 1;
    kept = 1;
  }
  p.outer = kept - 1;
  p.len = sz[kept - 1];
  p.ds = m[kept - 1];
  p.osrc.assign(static_cast<size_t>(p.n) * KGB_MAX_RANK, 0);
  p.src.resize(static_cast<size_t>(p.n));
  p.ss.resize(static_cast<size_t>(p.n));
  for (int d = 0; d < p.outer; ++d) {
    p.osize[d] = sz[d];
    p.odst[d] = m[d];
    p.rows *= sz[d];
  }
  bool unit_src = true;
  for (int k = 0; k < p.n; ++k) {
    const int64_t* mk = &m[static_cast<size_t>(k + 1) * KGB_MAX_RANK];
    for (int d = 0; d < p.outer; ++d) p.osrc[static_cast<size_t>(k) * KGB_MAX_RANK + d] = mk[d];
    p.ss[static_cast<size_t>(k)] = mk[kept - 1];
    p.src[static_cast<size_t>(k)] = static_cast<const char*>(items->items[k]->data);
    unit_src = unit_src && mk[kept - 1] == 1;
  }
  p.dense = unit_src && p.ds == 1;
  p.interleave = unit_src && p.ds == p.n && p.item_step == 1 && p.n > 1;
  return p;
}

// Copies `bytes` contiguous bytes; with `stream`, the aligned body goes around the caches.
inline void copy_bytes(char* __restrict dst, const char* __restrict src, int64_t bytes, bool stream) {
#if defined(__AVX512F__)
  if (stream && bytes >= 512) {
    const int64_t head = (64 - (reinterpret_cast<uintptr_t>(dst) & 63)) & 63;
    memcpy(dst, src, static_cast<size_t>(head));
    int64_t i = head;
    for (; i + 128 <= bytes; i += 128) {
      const __m512i v0 = _mm512_loadu_si512(src + i), v1 = _mm512_loadu_si512(src + i + 64);
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), v0);
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 64), v1);
    }
    memcpy(dst + i, src + i, static_cast<size_t>(bytes - i));
    return;
  }
#elif defined(__AVX2__)
  if (stream && bytes >= 256) {
    const int64_t head = (32 - (reinterpret_cast<uintptr_t>(dst) & 31)) & 31;
    memcpy(dst, src, static_cast<size_t>(head));
    int64_t i = head;
    for (; i + 32 <= bytes; i += 32)
      _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    memcpy(dst + i, src + i, static_cast<size_t>(bytes - i));
    return;
  }
#endif
  (void)stream;
  memcpy(dst, src, static_cast<size_t>(bytes));
}

// d[j * N + k] = s_k[j]: N dense items interleaved into one dense row.
template <typename E, int N>
inline void interleave_fixed(E* __restrict d, const E* const* s, int64_t c0, int64_t c1) {
  const E* __restrict s0 = s[0];
  const E* __restrict s1 = s[1];
  const E* __restrict s2 = N > 2 ? s[2] : s[0];
  const E* __restrict s3 = N > 3 ? s[3] : s[0];
  for (int64_t j = c0; j < c1; ++j) {
    d[j * N] = s0[j];
    d[j * N + 1] = s1[j];
    if (N > 2) d[j * N + 2] = s2[j];
    if (N > 3) d[j * N + 3] = s3[j];
  }
}

template <typename E>
void run_piece(const Plan& p, const Piece& w, bool stream) {
  E* out = reinterpret_cast<E*>(p.dst);
  std::vector<const E*> rowsrc(static_cast<size_t>(p.n));
  for (int64_t r = w.r0; r < w.r1; ++r) {
    E* drow = out + p.dst_row(r);
    for (int k = 0; k < p.n; ++k) rowsrc[static_cast<size_t>(k)] = reinterpret_cast<const E*>(p.src[static_cast<size_t>(k)]) + p.src_row(r, k);
    if (p.interleave) {
      switch (p.n) {
        case 2: interleave_fixed<E, 2>(drow, rowsrc.data(), w.c0, w.c1); continue;
        case 3: interleave_fixed<E, 3>(drow, rowsrc.data(), w.c0, w.c1); continue;
        case 4: interleave_fixed<E, 4>(drow, rowsrc.data(), w.c0, w.c1); continue;
        default: break;
      }
      // Longer lists: short runs of every item keep the written lines in L1.
      const int64_t n = p.n;
      for (int64_t j0 = w.c0; j0 < w.c1; j0 += 64) {
        const int64_t j1 = w.c1 - j0 < 64 ? w.c1 : j0 + 64;
        for (int64_t k = 0; k < n; ++k) {
          const E* __restrict s = rowsrc[static_cast<size_t>(k)];
          for (int64_t j = j0; j < j1; ++j) drow[j * n + k] = s[j];
        }
      }
      continue;
    }
    for (int k = 0; k < p.n; ++k) {
      E* d = drow + k * p.item_step;
      const E* s = rowsrc[static_cast<size_t>(k)];
      const int64_t ss = p.ss[static_cast<size_t>(k)];
      if (p.dense) {
        copy_bytes(reinterpret_cast<char*>(d + w.c0), reinterpret_cast<const char*>(s + w.c0),
                   (w.c1 - w.c0) * static_cast<int64_t>(sizeof(E)), stream);
      } else if (p.ds == 1) {
        for (int64_t j = w.c0; j < w.c1; ++j) d[j] = s[j * ss];
      } else {
        for (int64_t j = w.c0; j < w.c1; ++j) d[j * p.ds] = s[j * ss];
      }
    }
  }
}

template <typename E>
void run_all(const Plan& p, const std::vector<Piece>& pieces, bool stream) {
  const int64_t n = static_cast<int64_t>(pieces.size());
#pragma omp parallel if (n > 1)
  {
#pragma omp for schedule(dynamic, 1) nowait
    for (int64_t i = 0; i < n; ++i) run_piece<E>(p, pieces[static_cast<size_t>(i)], stream);
#if defined(__AVX512F__) || defined(__AVX2__)
    if (stream) _mm_sfence();  // streamed stores visible before the region ends
#endif
  }
}

}  // namespace

extern "C" int kgb_aten_stack(const kgb_tensor_list* tensors, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  switch (out->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (tensors->count < 1 || !tensors->items[0]) return KGB_ERR_INVALID;
  const kgb_tensor* first = tensors->items[0];
  const int rank = first->rank;
  if (out->rank != rank + 1 || dim < -(rank + 1) || dim > rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank + 1;
  const int d = static_cast<int>(dim);
  for (int64_t k = 0; k < tensors->count; ++k) {
    const kgb_tensor* t = tensors->items[k];
    if (!t || t->dtype != out->dtype || t->rank != rank) return KGB_ERR_INVALID;
    for (int i = 0; i < rank; ++i)
      if (t->sizes[i] != first->sizes[i]) return KGB_ERR_INVALID;
  }
  for (int o = 0, i = 0; o < out->rank; ++o)
    if (out->sizes[o] != (o == d ? tensors->count : first->sizes[i++])) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;

  const Plan p = plan_copy(tensors, out, d);
  const int32_t elem = kgb_dtype_size(out->dtype);
  // Pieces of ~kPieceBytes of out: parts of one long row, or blocks of short rows.
  std::vector<Piece> pieces;
  const int64_t row_bytes = p.len * elem * p.n;
  if (row_bytes >= 2 * kPieceBytes) {
    const int64_t cols = kPieceBytes / (elem * p.n) > 0 ? kPieceBytes / (elem * p.n) : 1;
    for (int64_t r = 0; r < p.rows; ++r)
      for (int64_t c0 = 0; c0 < p.len; c0 += cols) pieces.push_back({r, r + 1, c0, p.len - c0 < cols ? p.len : c0 + cols});
  } else {
    const int64_t per = row_bytes >= kPieceBytes ? 1 : kPieceBytes / row_bytes;
    for (int64_t r = 0; r < p.rows; r += per) pieces.push_back({r, p.rows - r < per ? p.rows : r + per, 0, p.len});
  }
  const bool stream_stores = p.dense && kgb_numel(out) * elem >= kStreamThreshold;
  switch (elem) {
    case 1: run_all<uint8_t>(p, pieces, stream_stores); break;
    case 2: run_all<uint16_t>(p, pieces, stream_stores); break;
    case 4: run_all<uint32_t>(p, pieces, stream_stores); break;
    default: run_all<uint64_t>(p, pieces, stream_stores); break;
  }
  return KGB_OK;
}
