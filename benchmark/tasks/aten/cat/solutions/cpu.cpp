// aten/cat on the CPU: a bitwise copy of every item into its slice of out,
// so it works on element sizes (1, 2, 4, 8 bytes) rather than dtypes.
//
// Each item's copy is simplified first (size-1 dims dropped, dims that are
// contiguous in both the item and its out slice merged), which turns the
// common cases into a few long rows: one row per item for dim = 0 on
// contiguous tensors, one row per out row for dim = 1. The rows of every item
// are cut into work pieces of about 128 KiB that all threads share. Dense rows
// are copied with AVX-512/AVX2 loads and, when the whole output is larger
// than the caches, non-temporal stores (no read-for-ownership of out: a third
// less memory traffic). Strided rows (transposed, stepped or padded items)
// are copied in 16 x 64 tiles so that a transposed item is read a cache line
// at a time.
#include <stdint.h>
#include <string.h>

#include <vector>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "kgb_kernel.h"

namespace {

constexpr int64_t kPieceBytes = 128 * 1024;       // work per piece
constexpr int64_t kStreamThreshold = 8ll << 20;   // output bytes from which stores bypass the caches

// One item's copy after simplification: rows of `len` elements.
struct Copy {
  const char* src = nullptr;
  char* dst = nullptr;
  int outer_rank = 0;                    // dims before the row dim
  int64_t osize[KGB_MAX_RANK] = {};      // their sizes, outermost first
  int64_t ostride_s[KGB_MAX_RANK] = {};  // and strides (elements) in the item and in out
  int64_t ostride_d[KGB_MAX_RANK] = {};
  int64_t rows = 1, len = 1;
  int64_t ss = 1, ds = 1;  // element strides along the row
  bool dense = false;      // ss == ds == 1

  void row_offsets(int64_t r, int64_t* so, int64_t* dof) const {
    int64_t a = 0, b = 0;
    for (int d = outer_rank - 1; d >= 0; --d) {
      const int64_t q = r / osize[d], i = r - q * osize[d];
      r = q;
      a += i * ostride_s[d];
      b += i * ostride_d[d];
    }
    *so = a;
    *dof = b;
  }
};

// A range of rows [r0, r1) of a copy, or part [c0, c1) of one long row.
struct Piece {
  int copy;
  int64_t r0, r1, c0, c1;
};

// Drops size-1 dims and merges neighbours contiguous in both tensors.
Copy simplify(const char* src, char* dst, int rank, const int64_t* sizes, const int64_t* ss, const int64_t* ds) {
  int64_t sz[KGB_MAX_RANK], a[KGB_MAX_RANK], b[KGB_MAX_RANK];
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] == 1) continue;
    if (n > 0 && a[n - 1] == ss[d] * sizes[d] && b[n - 1] == ds[d] * sizes[d]) {
      sz[n - 1] *= sizes[d];
      a[n - 1] = ss[d];
      b[n - 1] = ds[d];
      continue;
    }
    sz[n] = sizes[d];
    a[n] = ss[d];
    b[n] = ds[d];
    ++n;
  }
  Copy c;
  c.src = src;
  c.dst = dst;
  if (n == 0) {  // a single element
    sz[0] = 1;
    a[0] = b[0] = 1;
    n = 1;
  }
  c.len = sz[n - 1];
  c.ss = a[n - 1];
  c.ds = b[n - 1];
  c.outer_rank = n - 1;
  for (int d = 0; d < n - 1; ++d) {
    c.osize[d] = sz[d];
    c.ostride_s[d] = a[d];
    c.ostride_d[d] = b[d];
    c.rows *= sz[d];
  }
  c.dense = c.ss == 1 && c.ds == 1;
  return c;
}

// Copies `bytes` contiguous bytes; with `stream`, the aligned body goes
// around the caches.
inline void copy_bytes(char* __restrict dst, const char* __restrict src, int64_t bytes, bool stream) {
#if defined(__AVX512F__)
  if (stream && bytes >= 512) {
    const int64_t head = (64 - (reinterpret_cast<uintptr_t>(dst) & 63)) & 63;
    memcpy(dst, src, static_cast<size_t>(head));
    int64_t i = head;
    for (; i + 256 <= bytes; i += 256) {
      const __m512i v0 = _mm512_loadu_si512(src + i), v1 = _mm512_loadu_si512(src + i + 64);
      const __m512i v2 = _mm512_loadu_si512(src + i + 128), v3 = _mm512_loadu_si512(src + i + 192);
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), v0);
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 64), v1);
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 128), v2);
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 192), v3);
    }
    for (; i + 64 <= bytes; i += 64) _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), _mm512_loadu_si512(src + i));
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

template <typename E>
void run_piece(const Copy& c, const Piece& p, bool stream) {
  const E* src = reinterpret_cast<const E*>(c.src);
  E* dst = reinterpret_cast<E*>(c.dst);
  if (c.dense) {
    for (int64_t r = p.r0; r < p.r1; ++r) {
      int64_t so, dof;
      c.row_offsets(r, &so, &dof);
      copy_bytes(reinterpret_cast<char*>(dst + dof + p.c0), reinterpret_cast<const char*>(src + so + p.c0),
                 (p.c1 - p.c0) * static_cast<int64_t>(sizeof(E)), stream);
    }
    return;
  }
  // Strided rows in tiles of 16 rows x 64 columns: neighbouring rows of a
  // transposed item are neighbouring elements, so a tile reads whole lines.
  constexpr int64_t kRows = 16, kCols = 64;
  int64_t so[kRows], dof[kRows];
  for (int64_t r0 = p.r0; r0 < p.r1; r0 += kRows) {
    const int64_t nr = p.r1 - r0 < kRows ? p.r1 - r0 : kRows;
    for (int64_t k = 0; k < nr; ++k) c.row_offsets(r0 + k, &so[k], &dof[k]);
    for (int64_t c0 = p.c0; c0 < p.c1; c0 += kCols) {
      const int64_t c1 = p.c1 - c0 < kCols ? p.c1 : c0 + kCols;
      for (int64_t k = 0; k < nr; ++k) {
        const E* s = src + so[k];
        E* d = dst + dof[k];
        if (c.ds == 1) {
          for (int64_t j = c0; j < c1; ++j) d[j] = s[j * c.ss];
        } else {
          for (int64_t j = c0; j < c1; ++j) d[j * c.ds] = s[j * c.ss];
        }
      }
    }
  }
}

template <typename E>
void run_all(const std::vector<Copy>& copies, const std::vector<Piece>& pieces, bool stream) {
  const int64_t n = static_cast<int64_t>(pieces.size());
#pragma omp parallel if (n > 1)
  {
#pragma omp for schedule(dynamic, 1) nowait
    for (int64_t i = 0; i < n; ++i) run_piece<E>(copies[static_cast<size_t>(pieces[i].copy)], pieces[i], stream);
#if defined(__AVX512F__) || defined(__AVX2__)
    if (stream) _mm_sfence();  // streamed stores visible before the region ends
#endif
  }
}

}  // namespace

extern "C" int kgb_aten_cat(const kgb_tensor_list* tensors, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const int32_t elem = kgb_dtype_size(out->dtype);
  switch (out->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  const int rank = out->rank;
  if (rank < 1) return KGB_ERR_INVALID;
  if (dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int d = static_cast<int>(dim);

  // Every item that contributes (the skipped [0] items and empty ones add nothing).
  std::vector<Copy> copies;
  int64_t offset = 0, total_bytes = 0;
  for (int64_t k = 0; k < tensors->count; ++k) {
    const kgb_tensor* t = tensors->items[k];
    if (!t || t->dtype != out->dtype) return KGB_ERR_INVALID;
    if (t->rank == 1 && t->sizes[0] == 0) continue;  // the legacy rule
    if (t->rank != rank) return KGB_ERR_INVALID;
    for (int i = 0; i < rank; ++i)
      if (i != d && t->sizes[i] != out->sizes[i]) return KGB_ERR_INVALID;
    const int64_t numel = kgb_numel(t);
    if (numel > 0) {
      char* dst = static_cast<char*>(out->data) + offset * out->strides[d] * elem;
      copies.push_back(simplify(static_cast<const char*>(t->data), dst, rank, t->sizes, t->strides, out->strides));
      total_bytes += numel * elem;
    }
    offset += t->sizes[d];
  }
  if (offset != out->sizes[d] && kgb_numel(out) != 0) return KGB_ERR_INVALID;
  if (copies.empty()) return KGB_OK;

  // Work pieces of about kPieceBytes: groups of short rows, parts of long ones.
  std::vector<Piece> pieces;
  for (size_t i = 0; i < copies.size(); ++i) {
    const Copy& c = copies[i];
    const int64_t row_bytes = c.len * elem;
    if (row_bytes >= 2 * kPieceBytes) {
      const int64_t cols = kPieceBytes / elem;
      for (int64_t r = 0; r < c.rows; ++r)
        for (int64_t c0 = 0; c0 < c.len; c0 += cols)
          pieces.push_back({static_cast<int>(i), r, r + 1, c0, c.len - c0 < cols ? c.len : c0 + cols});
    } else {
      const int64_t per = row_bytes >= kPieceBytes ? 1 : kPieceBytes / (row_bytes > 0 ? row_bytes : 1);
      for (int64_t r = 0; r < c.rows; r += per)
        pieces.push_back({static_cast<int>(i), r, c.rows - r < per ? c.rows : r + per, 0, c.len});
    }
  }
  const bool stream_stores = total_bytes >= kStreamThreshold;
  switch (elem) {
    case 1: run_all<uint8_t>(copies, pieces, stream_stores); break;
    case 2: run_all<uint16_t>(copies, pieces, stream_stores); break;
    case 4: run_all<uint32_t>(copies, pieces, stream_stores); break;
    default: run_all<uint64_t>(copies, pieces, stream_stores); break;
  }
  return KGB_OK;
}
