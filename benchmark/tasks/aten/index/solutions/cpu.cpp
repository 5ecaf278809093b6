// aten/index (index.Tensor) on the CPU.
//
// The host geometry comes from shapes alone: the list items are walked
// against the dims of self (None: one sliced dim; an integer item: one
// advanced dim; a bool mask: as many advanced dims as it has), B (the
// broadcast advanced shape) is read off out's shape, and B sits in place when
// the advanced dims are adjacent, else first. Then:
//   1. every position b of B is resolved once into its offset in self
//      (`base`): integer items are read once and wrapped; each mask is
//      compacted in parallel (per-thread true counts, a prefix over threads,
//      then every thread writes the self offsets of its trues in order);
//   2. out is copied as rows: (slice position before B, b) picks a source
//      row, and the sliced dims after B are merged where self and out are
//      both contiguous across them, so the inner loop is a memcpy or a
//      strided copy the compiler vectorises.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include <omp.h>

#include "kgb_kernel.h"

namespace {

struct Item {
  const kgb_tensor* t;
  int dim;   // first dim of self it indexes
  bool mask;
};

int64_t read_index(const kgb_tensor* t, int64_t off) {
  return t->dtype == KGB_I64 ? static_cast<const int64_t*>(t->data)[off] : static_cast<const int32_t*>(t->data)[off];
}

// Offsets in self of the true elements of mask `m` (covering self dims from
// `dim`), in row-major order of the mask; false if the count is not `expect`.
bool compact_mask(const kgb_tensor* self, const kgb_tensor* m, int dim, int64_t expect, std::vector<int64_t>& offs) {
  const int r = m->rank;
  int64_t n = 1;
  for (int j = 0; j < r; ++j) n *= m->sizes[j];
  const uint8_t* flags = static_cast<const uint8_t*>(m->data);
  auto walk = [&](int64_t first, int64_t last, auto&& on_true) {
    int64_t idx[KGB_MAX_RANK] = {}, rest = first, at = 0, so = 0;
    for (int j = r - 1; j >= 0; --j) {
      idx[j] = rest % m->sizes[j];
      rest /= m->sizes[j];
      at += idx[j] * m->strides[j];
      so += idx[j] * self->strides[dim + j];
    }
    for (int64_t i = first; i < last; ++i) {
      if (flags[at]) on_true(so);
      for (int j = r - 1; j >= 0; --j) {
        at += m->strides[j];
        so += self->strides[dim + j];
        if (++idx[j] < m->sizes[j]) break;
        at -= m->strides[j] * idx[j];
        so -= self->strides[dim + j] * idx[j];
        idx[j] = 0;
      }
    }
  };
  const int threads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), std::max<int64_t>(1, n / 65536)));
  std::vector<int64_t> counts(static_cast<size_t>(threads) + 1, 0);
  offs.assign(static_cast<size_t>(expect), 0);
  bool fits = true;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t first = n * t / nt, last = n * (t + 1) / nt;
    int64_t c = 0;
    walk(first, last, [&](int64_t) { ++c; });
    counts[static_cast<size_t>(t) + 1] = c;
#pragma omp barrier
#pragma omp single
    {
      for (int i = 0; i < nt; ++i) counts[static_cast<size_t>(i) + 1] += counts[static_cast<size_t>(i)];
      fits = counts[static_cast<size_t>(nt)] == expect;
    }
    if (fits) {
      int64_t* dst = offs.data() + counts[static_cast<size_t>(t)];
      walk(first, last, [&](int64_t so) { *dst++ = so; });
    }
  }
  return fits;
}

template <typename E>
void copy_rows(const kgb_tensor* self, kgb_tensor* out, const std::vector<int64_t>& base, int64_t nb,
               const std::vector<int64_t>& row_self, const std::vector<int64_t>& row_out, const std::vector<int64_t>& b_out,
               int64_t len, int64_t ss, int64_t os) {
  const E* src = static_cast<const E*>(self->data);
  E* dst = static_cast<E*>(out->data);
  const int64_t nbefore = static_cast<int64_t>(row_self.size());
  const int64_t rows = nbefore * nb;
#pragma omp parallel for schedule(static) if (rows * len > 32768)
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t qb = row / nb, b = row - qb * nb;
    const E* s = src + row_self[static_cast<size_t>(qb)] + base[static_cast<size_t>(b)];
    E* o = dst + row_out[static_cast<size_t>(qb)] + b_out[static_cast<size_t>(b)];
    if (ss == 1 && os == 1) {
      memcpy(o, s, static_cast<size_t>(len) * sizeof(E));
    } else {
      for (int64_t i = 0; i < len; ++i) o[i * os] = s[i * ss];
    }
  }
}

// Offsets of every position of `sizes` (row-major) for two stride sets.
void walk_offsets(const std::vector<int64_t>& sizes, const std::vector<int64_t>& sa, const std::vector<int64_t>& sb,
                  std::vector<int64_t>& oa, std::vector<int64_t>& ob) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  oa.assign(static_cast<size_t>(n), 0);
  ob.assign(static_cast<size_t>(n), 0);
  const int r = static_cast<int>(sizes.size());
  int64_t idx[2 * KGB_MAX_RANK] = {}, a = 0, b = 0;
  for (int64_t i = 0; i < n; ++i) {
    oa[static_cast<size_t>(i)] = a;
    ob[static_cast<size_t>(i)] = b;
    for (int d = r - 1; d >= 0; --d) {
      a += sa[static_cast<size_t>(d)];
      b += sb[static_cast<size_t>(d)];
      if (++idx[d] < sizes[static_cast<size_t>(d)]) break;
      a -= sa[static_cast<size_t>(d)] * idx[d];
      b -= sb[static_cast<size_t>(d)] * idx[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

extern "C" int kgb_aten_index(const kgb_tensor* self, const kgb_tensor_list* indices, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  const int32_t elem = kgb_dtype_size(self->dtype);
  switch (self->dtype) {
    case KGB_F32: case KGB_F16: case KGB_BF16: case KGB_F64: case KGB_I64: case KGB_I32: case KGB_U8: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (out->dtype != self->dtype) return KGB_ERR_INVALID;
  const int rank = self->rank;

  // Walk the list against the dims of self.
  std::vector<Item> items;
  bool sliced[KGB_MAX_RANK];
  for (int d = 0; d < KGB_MAX_RANK; ++d) sliced[d] = true;
  int d = 0, rb = 0, first = rank, last = -1, nadv = 0;
  for (int64_t k = 0; k < indices->count; ++k) {
    const kgb_tensor* t = indices->items[k];
    if (!t) {
      ++d;
      continue;
    }
    const bool mask = t->dtype == KGB_BOOL;
    if (!mask && t->dtype != KGB_I64 && t->dtype != KGB_I32) return KGB_ERR_UNSUPPORTED;
    const int covers = mask ? t->rank : 1;
    if (d + covers > rank) return KGB_ERR_INVALID;
    if (mask)
      for (int j = 0; j < covers; ++j)
        if (t->sizes[j] != self->sizes[d + j]) return KGB_ERR_INVALID;
    items.push_back({t, d, mask});
    for (int j = 0; j < covers; ++j) sliced[d + j] = false;
    first = std::min(first, d);
    last = std::max(last, d + covers - 1);
    nadv += covers;
    rb = std::max(rb, mask ? 1 : static_cast<int>(t->rank));
    d += covers;
  }
  if (d > rank || items.empty() || nadv == 0) return KGB_ERR_INVALID;
  const bool adjacent = last - first + 1 == nadv;
  std::vector<int> other;
  int b_at = 0;
  for (int k = 0; k < rank; ++k)
    if (sliced[k]) {
      other.push_back(k);
      if (adjacent && k < first) ++b_at;
    }
  if (out->rank != static_cast<int>(other.size()) + rb) return KGB_ERR_INVALID;
  for (size_t i = 0; i < other.size(); ++i)
    if (out->sizes[i < static_cast<size_t>(b_at) ? i : i + rb] != self->sizes[other[i]]) return KGB_ERR_INVALID;
  int64_t nb = 1, n_out = 1;
  for (int r = 0; r < rb; ++r) nb *= out->sizes[b_at + r];
  for (int r = 0; r < out->rank; ++r) n_out *= out->sizes[r];
  if (n_out == 0) return KGB_OK;

  // 1. base[b]: offset in self of the advanced coordinates of position b.
  std::vector<int64_t> base(static_cast<size_t>(nb), 0), b_out(static_cast<size_t>(nb), 0);
  {
    std::vector<int64_t> bsize(out->sizes + b_at, out->sizes + b_at + rb), bstride(out->strides + b_at, out->strides + b_at + rb);
    std::vector<int64_t> unused;
    walk_offsets(bsize, bstride, bstride, b_out, unused);
  }
  for (const Item& it : items) {
    const kgb_tensor* t = it.t;
    if (it.mask) {
      const int64_t m = out->sizes[b_at + rb - 1];
      std::vector<int64_t> offs;
      if (!compact_mask(self, t, it.dim, m, offs)) return KGB_ERR_INVALID;
#pragma omp parallel for schedule(static) if (nb > 65536)
      for (int64_t b = 0; b < nb; ++b) base[static_cast<size_t>(b)] += offs[static_cast<size_t>(b % m)];
      continue;
    }
    // Strides of the item along B (0 where broadcast).
    std::vector<int64_t> along(static_cast<size_t>(rb), 0);
    for (int j = 0; j < t->rank; ++j) {
      const int at = rb - t->rank + j;
      if (t->sizes[j] == out->sizes[b_at + at]) along[static_cast<size_t>(at)] = t->sizes[j] == 1 ? 0 : t->strides[j];
      else if (t->sizes[j] != 1) return KGB_ERR_INVALID;
    }
    const int64_t size = self->sizes[it.dim], stride = self->strides[it.dim];
    bool in_range = true;
#pragma omp parallel for schedule(static) reduction(&& : in_range) if (nb > 65536)
    for (int64_t b = 0; b < nb; ++b) {
      int64_t rest = b, at = 0;
      for (int r = rb - 1; r >= 0; --r) {
        const int64_t s = out->sizes[b_at + r];
        at += (rest % s) * along[static_cast<size_t>(r)];
        rest /= s;
      }
      int64_t v = read_index(t, at);
      if (v < -size || v >= size) in_range = false;
      v = v < 0 ? v + size : v;
      base[static_cast<size_t>(b)] += v * stride;
    }
    if (!in_range) return KGB_ERR_INVALID;
  }

  // 2. Rows: the sliced dims before B (outer) and after B (merged inner).
  std::vector<int64_t> before_size, before_self, before_out;
  for (int i = 0; i < b_at; ++i) {
    before_size.push_back(self->sizes[other[static_cast<size_t>(i)]]);
    before_self.push_back(self->strides[other[static_cast<size_t>(i)]]);
    before_out.push_back(out->strides[i]);
  }
  std::vector<int64_t> after_size, after_self, after_out;  // merged, innermost last
  for (size_t i = static_cast<size_t>(b_at); i < other.size(); ++i) {
    const int64_t size = self->sizes[other[i]], s = self->strides[other[i]], o = out->strides[i + rb];
    if (size == 1) continue;
    if (!after_size.empty() && after_self.back() == s * size && after_out.back() == o * size) {
      after_size.back() *= size;
      after_self.back() = s;
      after_out.back() = o;
      continue;
    }
    after_size.push_back(size);
    after_self.push_back(s);
    after_out.push_back(o);
  }
  int64_t len = 1, ss = 0, os = 0;
  if (!after_size.empty()) {  // the innermost merged dim is the copied row
    len = after_size.back();
    ss = after_self.back();
    os = after_out.back();
    after_size.pop_back();
    after_self.pop_back();
    after_out.pop_back();
  }
  // Outer positions: (before B) x (after B except the row), as offsets.
  std::vector<int64_t> pre_self, pre_out, post_self, post_out;
  walk_offsets(before_size, before_self, before_out, pre_self, pre_out);
  walk_offsets(after_size, after_self, after_out, post_self, post_out);
  std::vector<int64_t> base_b(static_cast<size_t>(nb) * post_self.size()), out_b(base_b.size());
  // Fold the post-B outer positions into the per-b offsets: position (b, p).
  for (int64_t b = 0; b < nb; ++b)
    for (size_t p = 0; p < post_self.size(); ++p) {
      base_b[static_cast<size_t>(b) * post_self.size() + p] = base[static_cast<size_t>(b)] + post_self[p];
      out_b[static_cast<size_t>(b) * post_self.size() + p] = b_out[static_cast<size_t>(b)] + post_out[p];
    }
  const int64_t nbp = nb * static_cast<int64_t>(post_self.size());
  switch (elem) {
    case 1: copy_rows<uint8_t>(self, out, base_b, nbp, pre_self, pre_out, out_b, len, ss, os); break;
    case 2: copy_rows<uint16_t>(self, out, base_b, nbp, pre_self, pre_out, out_b, len, ss, os); break;
    case 4: copy_rows<uint32_t>(self, out, base_b, nbp, pre_self, pre_out, out_b, len, ss, os); break;
    default: copy_rows<uint64_t>(self, out, base_b, nbp, pre_self, pre_out, out_b, len, ss, os); break;
  }
  return KGB_OK;
}
