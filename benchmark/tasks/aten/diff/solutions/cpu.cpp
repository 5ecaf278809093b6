// aten/diff on the CPU: out = the n-th forward difference of [prepend, self,
// append] along dim, each difference step rounded to the dtype (16-bit floats
// after every step), integers wrapping, bool steps a != b.
//
// out is walked in rows along its smallest-stride dim, OpenMP over rows:
// - a row along dim (dim innermost): the joined line is gathered once into a
//   per-thread buffer and the n steps run over it in place, each pass a
//   vectorised loop;
// - a row along another dim: output element k depends on the joined rows
//   k..k+n only (the n steps restricted to that window give exactly the full
//   computation's value), so blocks of those n + 1 rows are loaded into
//   buffers and the steps run across the block, vectorised.
// Every step rounds to the dtype as ATen's separate subtractions do.
#include <stdint.h>
#include <string.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kMaxOrder = 32;  // window of at most 33 values

// ---- element types: storage S, computation type W, one difference step ------
struct F32 { using S = float; using W = float;
  static W load(S v) { return v; } static S store(W w) { return w; } static W step(W a, W b) { return a - b; } };
struct F64 { using S = double; using W = double;
  static W load(S v) { return v; } static S store(W w) { return w; } static W step(W a, W b) { return a - b; } };
struct F16 { using S = uint16_t; using W = float;
  static W load(S v) { return kgb_f16_to_float(v); } static S store(W w) { return kgb_float_to_f16(w); }
  static W step(W a, W b) { return kgb_f16_to_float(kgb_float_to_f16(a - b)); } };  // rounded every step
struct BF16 { using S = uint16_t; using W = float;
  static W load(S v) { return kgb_bf16_to_float(v); } static S store(W w) { return kgb_float_to_bf16(w); }
  static W step(W a, W b) { return kgb_bf16_to_float(kgb_float_to_bf16(a - b)); } };
struct I32 { using S = int32_t; using W = int32_t;
  static W load(S v) { return v; } static S store(W w) { return w; }
  static W step(W a, W b) { return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)); } };
struct I64 { using S = int64_t; using W = int64_t;
  static W load(S v) { return v; } static S store(W w) { return w; }
  static W step(W a, W b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); } };
struct Bool { using S = uint8_t; using W = uint8_t;
  static W load(S v) { return v != 0; } static S store(W w) { return w; } static W step(W a, W b) { return a != b; } };

// ---- the problem ----------------------------------------------------------------
struct Problem {
  int rank, dim, row_dim;       // row_dim: the dim out's rows run along
  int64_t n, joined;
  int pieces;                   // prepend, self, append that take part, in order
  const char* data[3];
  int64_t start[3], len[3];     // joined position of each piece's first element, its length
  int64_t stride[3][KGB_MAX_RANK];
  int64_t sizes[KGB_MAX_RANK], out_stride[KGB_MAX_RANK];
  char* out;
};

// Which piece holds joined position p, and the element offset of that
// position's row (the other indices giving the piece offsets `base`).
inline const char* row_at(const Problem& pb, const int64_t* base, int64_t p, int* piece, int64_t* offset) {
  int q = 0;
  while (q + 1 < pb.pieces && p >= pb.start[q + 1]) ++q;
  *piece = q;
  *offset = base[q] + (p - pb.start[q]) * pb.stride[q][pb.dim];
  return pb.data[q];
}

template <typename T>
void load_block(const char* data, int64_t offset, int64_t stride, int64_t m, typename T::W* dst) {
  const typename T::S* s = reinterpret_cast<const typename T::S*>(data) + offset;
  if (stride == 1)
    for (int64_t j = 0; j < m; ++j) dst[j] = T::load(s[j]);
  else
    for (int64_t j = 0; j < m; ++j) dst[j] = T::load(s[j * stride]);
}

template <typename T>
void store_block(const typename T::W* src, typename T::S* o, int64_t stride, int64_t m) {
  if (stride == 1)
    for (int64_t j = 0; j < m; ++j) o[j] = T::store(src[j]);
  else
    for (int64_t j = 0; j < m; ++j) o[j * stride] = T::store(src[j]);
}

// One row of out that does not run along dim: its window is n + 1 fixed rows
// of the joined tensor. Blocks of kBlock columns are loaded into n + 1
// buffers, the steps run across the block (vectorised), the result stored.
template <typename T>
void across_rows(const Problem& pb, const int64_t* base, int64_t k, typename T::S* o, int64_t os, int64_t row_len) {
  constexpr int64_t kBlock = 512;
  typename T::W w[kMaxOrder + 1][kBlock];
  const char* data[kMaxOrder + 1];
  int64_t off[kMaxOrder + 1], step[kMaxOrder + 1];
  for (int64_t i = 0; i <= pb.n; ++i) {
    int q;
    data[i] = row_at(pb, base, k + i, &q, &off[i]);
    step[i] = pb.stride[q][pb.row_dim];
  }
  for (int64_t j0 = 0; j0 < row_len; j0 += kBlock) {
    const int64_t m = row_len - j0 < kBlock ? row_len - j0 : kBlock;
    for (int64_t i = 0; i <= pb.n; ++i) load_block<T>(data[i], off[i] + j0 * step[i], step[i], m, w[i]);
    for (int64_t len = pb.n; len > 0; --len)
      for (int64_t i = 0; i < len; ++i) {
        typename T::W* __restrict a = w[i];
        const typename T::W* __restrict b = w[i + 1];
        for (int64_t j = 0; j < m; ++j) a[j] = T::step(b[j], a[j]);
      }
    store_block<T>(w[0], o + j0 * os, os, m);
  }
}

// One line of out along dim: the joined line is gathered once, the n steps
// run between two buffers (each pass a vectorised loop), the first L - n
// values stored.
template <typename T>
void along_line(const Problem& pb, const int64_t* base, typename T::W* a, typename T::W* b, typename T::S* o, int64_t os) {
  for (int q = 0; q < pb.pieces; ++q) load_block<T>(pb.data[q], base[q], pb.stride[q][pb.dim], pb.len[q], a + pb.start[q]);
  for (int64_t len = pb.joined; len > pb.joined - pb.n; --len) {
    const typename T::W* __restrict x = a;
    typename T::W* __restrict y = b;
    for (int64_t j = 0; j + 1 < len; ++j) y[j] = T::step(x[j + 1], x[j]);
    typename T::W* t = a;
    a = b;
    b = t;
  }
  store_block<T>(a, o, os, pb.joined - pb.n);
}

template <typename T>
void run(const Problem& pb) {
  const int r = pb.row_dim;
  const int64_t row_len = pb.sizes[r];
  int64_t rows = 1;
  for (int d = 0; d < pb.rank; ++d)
    if (d != r) rows *= pb.sizes[d];
  typename T::S* out = reinterpret_cast<typename T::S*>(pb.out);
#pragma omp parallel if (rows * row_len > 16384)
  {
    std::vector<typename T::W> line(r == pb.dim ? 2 * static_cast<size_t>(pb.joined) : 0);
#pragma omp for schedule(static)
    for (int64_t row = 0; row < rows; ++row) {
      int64_t rest = row, o = 0, k = 0, base[3] = {0, 0, 0};
      for (int d = pb.rank - 1; d >= 0; --d) {
        if (d == r) continue;
        const int64_t i = rest % pb.sizes[d];
        rest /= pb.sizes[d];
        o += i * pb.out_stride[d];
        if (d == pb.dim) k = i;
        else
          for (int q = 0; q < pb.pieces; ++q) base[q] += i * pb.stride[q][d];
      }
      if (r == pb.dim) along_line<T>(pb, base, line.data(), line.data() + pb.joined, out + o, pb.out_stride[r]);
      else across_rows<T>(pb, base, k, out + o, pb.out_stride[r], row_len);
    }
  }
}

bool same_other_sizes(const kgb_tensor* a, const kgb_tensor* b, int dim) {
  if (a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; ++d)
    if (d != dim && a->sizes[d] != b->sizes[d]) return false;
  return true;
}

}  // namespace

extern "C" int kgb_aten_diff(const kgb_tensor* self, int64_t n, int64_t dim, const kgb_tensor* prepend,
                             const kgb_tensor* append, kgb_tensor* out, kgb_stream stream) {
  (void)stream;  // the CPU platform has no queue
  const int rank = self->rank;
  if (rank < 1 || n < 0) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return KGB_ERR_INVALID;
  Problem pb{};
  pb.rank = rank;
  pb.dim = static_cast<int>(dim);
  const kgb_tensor* parts[3] = {n > 0 ? prepend : nullptr, self, n > 0 ? append : nullptr};
  for (const kgb_tensor* t : parts) {
    if (!t) continue;
    if (t->dtype != self->dtype || !same_other_sizes(t, self, pb.dim)) return KGB_ERR_INVALID;
    const int q = pb.pieces++;
    pb.data[q] = static_cast<const char*>(t->data);
    pb.start[q] = pb.joined;
    pb.len[q] = t->sizes[dim];
    for (int d = 0; d < rank; ++d) pb.stride[q][d] = t->strides[d];
    pb.joined += t->sizes[dim];
  }
  // A piece of length 0 never holds a position: drop it so the lookup stays simple.
  int kept = 0;
  for (int q = 0; q < pb.pieces; ++q) {
    if (pb.len[q] == 0) continue;
    pb.data[kept] = pb.data[q];
    pb.start[kept] = pb.start[q];
    pb.len[kept] = pb.len[q];
    memcpy(pb.stride[kept], pb.stride[q], sizeof pb.stride[q]);
    ++kept;
  }
  pb.pieces = kept;
  pb.n = n < pb.joined ? n : pb.joined;
  if (out->dtype != self->dtype || !same_other_sizes(out, self, pb.dim) || out->sizes[dim] != pb.joined - pb.n)
    return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;
  if (pb.n > kMaxOrder) return KGB_ERR_UNSUPPORTED;
  for (int d = 0; d < rank; ++d) {
    pb.sizes[d] = out->sizes[d];
    pb.out_stride[d] = out->strides[d];
  }
  pb.out = static_cast<char*>(out->data);
  // Rows run along out's smallest-stride dim of size > 1 (its storage order).
  pb.row_dim = rank - 1;
  int64_t best = -1;
  for (int d = 0; d < rank; ++d) {
    if (out->sizes[d] < 2) continue;
    const int64_t s = out->strides[d] < 0 ? -out->strides[d] : out->strides[d];
    if (best < 0 || s < best) best = s, pb.row_dim = d;
  }
  switch (self->dtype) {
    case KGB_F32: run<F32>(pb); return KGB_OK;
    case KGB_F64: run<F64>(pb); return KGB_OK;
    case KGB_F16: run<F16>(pb); return KGB_OK;
    case KGB_BF16: run<BF16>(pb); return KGB_OK;
    case KGB_I32: run<I32>(pb); return KGB_OK;
    case KGB_I64: run<I64>(pb); return KGB_OK;
    case KGB_BOOL: run<Bool>(pb); return KGB_OK;
    default: return KGB_ERR_UNSUPPORTED;
  }
}
