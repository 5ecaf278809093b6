// aten/_index_put_impl_ on the CPU: index_put_ plus the `unsafe` flag, which
// only lets ATen skip its index checks (valid indices give the same result).
//
// The indexed positions split into B (the broadcast index shape) and the
// "other" dims of self (None items and trailing dims). First every position b
// of B is resolved once into its target offset in self and its offset in
// values (the index tensors are read exactly once). The other dims are then
// merged where self and values are both contiguous across them, leaving an
// inner row (usually a whole row of self, copied with memcpy or added with a
// vectorised loop) and a list of outer positions.
//
// With accumulate, the positions of B are grouped by target (a sort of the
// resolved offsets, ties in B's order), so duplicate targets are summed in B's order by
// one thread: no atomics, and the result is deterministic. Work is cut into
// units of (outer position, column chunk, run of groups); two units never
// share a target, because they differ in an outer position, a column or a
// group.
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include <omp.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

struct Plan {
  int64_t nb = 0;                      // positions of B
  std::vector<int64_t> b_self, b_val;  // per b: offset in self, in values
  int64_t len = 1, ss = 0, vs = 0;     // inner row: length, strides in self / values
  std::vector<int64_t> o_self, o_val;  // per outer position: offsets in self / values
};

// Offsets of every position of `sizes` (row-major) for two stride sets.
void walk(const std::vector<int64_t>& sizes, const std::vector<int64_t>& sa, const std::vector<int64_t>& sb,
          std::vector<int64_t>& oa, std::vector<int64_t>& ob) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  oa.assign(static_cast<size_t>(n), 0);
  ob.assign(static_cast<size_t>(n), 0);
  const int r = static_cast<int>(sizes.size());
  int64_t idx[KGB_MAX_RANK] = {}, a = 0, b = 0;
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

// Builds the plan; KGB_ERR_INVALID for shapes or indices ATen would reject.
int make_plan(const kgb_tensor* self, const kgb_tensor_list* indices, const kgb_tensor* values, Plan& p) {
  const int rank = self->rank;
  const int64_t count = indices->count;
  if (count < 1 || count > rank) return KGB_ERR_INVALID;
  int present[KGB_MAX_RANK], np = 0, rb = 0;
  for (int k = 0; k < count; ++k) {
    const kgb_tensor* t = indices->items[k];
    if (!t) continue;
    if (t->dtype != KGB_I64) return KGB_ERR_INVALID;
    present[np++] = k;
    rb = std::max(rb, static_cast<int>(t->rank));
  }
  if (np == 0) return KGB_ERR_INVALID;
  // B: right-aligned broadcast of the present items.
  std::vector<int64_t> bsize(static_cast<size_t>(rb), 1);
  for (int i = 0; i < np; ++i) {
    const kgb_tensor* t = indices->items[present[i]];
    for (int d = 0; d < t->rank; ++d) {
      int64_t& o = bsize[static_cast<size_t>(rb - t->rank + d)];
      if (t->sizes[d] == o || t->sizes[d] == 1) continue;
      if (o != 1) return KGB_ERR_INVALID;
      o = t->sizes[d];
    }
  }
  const bool adjacent = present[np - 1] - present[0] + 1 == np;
  std::vector<int> other;
  for (int d = 0; d < rank; ++d)
    if (d >= count || !indices->items[d]) other.push_back(d);
  const int before = adjacent ? static_cast<int>(std::count_if(other.begin(), other.end(), [&](int d) { return d < present[0]; })) : 0;
  const int rr = static_cast<int>(other.size()) + rb;  // rank of the indexed result
  if (values->rank > rr || rr > KGB_MAX_RANK + KGB_MAX_RANK) return KGB_ERR_INVALID;
  // values' strides over the result (right-aligned broadcast; 0 where it repeats).
  std::vector<int64_t> rsize, vstride(static_cast<size_t>(rr), 0);
  for (int i = 0; i < before; ++i) rsize.push_back(self->sizes[other[static_cast<size_t>(i)]]);
  rsize.insert(rsize.end(), bsize.begin(), bsize.end());
  for (size_t i = static_cast<size_t>(before); i < other.size(); ++i) rsize.push_back(self->sizes[other[i]]);
  for (int d = 0; d < values->rank; ++d) {
    const size_t r = static_cast<size_t>(rr - values->rank + d);
    if (values->sizes[d] == rsize[r]) vstride[r] = values->strides[d];
    else if (values->sizes[d] != 1) return KGB_ERR_INVALID;
  }

  // Per b: the target in self and the position in values.
  std::vector<int64_t> vb(vstride.begin() + before, vstride.begin() + before + rb);
  std::vector<int64_t> zero(static_cast<size_t>(rb), 0), unused;
  walk(bsize, zero, vb, unused, p.b_val);
  p.nb = static_cast<int64_t>(p.b_val.size());
  p.b_self.assign(static_cast<size_t>(p.nb), 0);
  for (int i = 0; i < np; ++i) {
    const int k = present[i];
    const kgb_tensor* t = indices->items[k];
    std::vector<int64_t> ts(static_cast<size_t>(rb), 0);
    for (int d = 0; d < t->rank; ++d)
      if (t->sizes[d] != 1) ts[static_cast<size_t>(rb - t->rank + d)] = t->strides[d];
    std::vector<int64_t> at;
    walk(bsize, ts, zero, at, unused);
    const int64_t* idx = static_cast<const int64_t*>(t->data);
    const int64_t size = self->sizes[k], stride = self->strides[k];
    for (int64_t b = 0; b < p.nb; ++b) {
      int64_t v = idx[at[static_cast<size_t>(b)]];
      if (v < -size || v >= size) return KGB_ERR_INVALID;
      if (v < 0) v += size;
      p.b_self[static_cast<size_t>(b)] += v * stride;
    }
  }

  // The other dims in result order with their strides; size-1 dims dropped,
  // neighbours contiguous in both self and values merged.
  std::vector<int64_t> osz, oss, ovs;
  for (size_t i = 0; i < other.size(); ++i) {
    const int d = other[i];
    const size_t r = i < static_cast<size_t>(before) ? i : i + static_cast<size_t>(rb);
    const int64_t size = self->sizes[d], s = self->strides[d], v = vstride[r];
    if (size == 1) continue;
    if (!osz.empty() && oss.back() == s * size && ovs.back() == v * size) {
      osz.back() *= size;
      oss.back() = s;
      ovs.back() = v;
      continue;
    }
    osz.push_back(size);
    oss.push_back(s);
    ovs.push_back(v);
  }
  if (!osz.empty()) {
    p.len = osz.back();
    p.ss = oss.back();
    p.vs = ovs.back();
    osz.pop_back();
    oss.pop_back();
    ovs.pop_back();
  }
  walk(osz, oss, ovs, p.o_self, p.o_val);
  return KGB_OK;
}

// Element operations by dtype: assignment copies bits, accumulation adds.
template <typename E>
struct Assign {
  static void one(E& s, E v) { s = v; }
};
template <typename E>
struct Add {  // f32, f64
  static void one(E& s, E v) { s += v; }
};
struct AddI64 {  // wrapping
  static void one(int64_t& s, int64_t v) { s = static_cast<int64_t>(static_cast<uint64_t>(s) + static_cast<uint64_t>(v)); }
};
struct OrBool {
  static void one(uint8_t& s, uint8_t v) { s = (s | v) != 0; }
};
template <bool Bf16>
struct AddHalf {  // float opmath, rounded after each addition
  static float load(uint16_t h) { return Bf16 ? kgb_bf16_to_float(h) : kgb_f16_to_float(h); }
  static uint16_t store(float f) { return Bf16 ? kgb_float_to_bf16(f) : kgb_float_to_f16(f); }
  static void one(uint16_t& s, uint16_t v) { s = store(load(s) + load(v)); }
};

// One row of n elements: dense rows as memcpy or a vectorisable loop.
template <typename Op, typename E>
inline void row(E* __restrict s, const E* __restrict v, int64_t n, int64_t ss, int64_t vs) {
  if (ss == 1 && vs == 1) {
    if constexpr (std::is_same_v<Op, Assign<E>>) {
      memcpy(s, v, static_cast<size_t>(n) * sizeof(E));
    } else {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) Op::one(s[j], v[j]);
    }
  } else {
    for (int64_t j = 0; j < n; ++j) Op::one(s[j * ss], v[j * vs]);
  }
}

template <typename Op, typename E>
void run(const Plan& p, E* self, const E* values, bool accumulate) {
  // Positions of B grouped by target (stable: each target sees its values in
  // B's order). Without accumulate every target is its own group.
  std::vector<int64_t> order(static_cast<size_t>(p.nb));
  for (int64_t b = 0; b < p.nb; ++b) order[static_cast<size_t>(b)] = b;
  std::vector<int64_t> group{0};
  if (accumulate) {
    std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {  // ties in B's order
      const int64_t tx = p.b_self[static_cast<size_t>(x)], ty = p.b_self[static_cast<size_t>(y)];
      return tx < ty || (tx == ty && x < y);
    });
    for (int64_t i = 1; i < p.nb; ++i)
      if (p.b_self[static_cast<size_t>(order[static_cast<size_t>(i)])] != p.b_self[static_cast<size_t>(order[static_cast<size_t>(i - 1)])]) group.push_back(i);
  } else {
    for (int64_t i = 1; i < p.nb; ++i) group.push_back(i);
  }
  group.push_back(p.nb);
  const int64_t ngroups = static_cast<int64_t>(group.size()) - 1;

  const int64_t nouter = static_cast<int64_t>(p.o_self.size());
  const int64_t work = nouter * p.len * p.nb;
  const int threads = work < (1 << 15) ? 1 : omp_get_max_threads();
  const int64_t want = 8 * static_cast<int64_t>(threads);
  // A row strided in self (a column of a row-major self) runs with B
  // innermost, so the rows of self and values an element lies in stay in
  // cache; such rows are split into chunks. Dense rows stay whole (up to
  // 64 KiB) and the groups of B are split instead: different groups never
  // share a target, different outer positions or columns never share one.
  const bool b_inner = p.ss != 1 && p.len > 1;
  int64_t chunk = p.len;
  if (b_inner) {
    if (nouter < want) chunk = std::max<int64_t>(16, (p.len * nouter + want - 1) / want);
  } else {
    chunk = std::max<int64_t>(1, std::min<int64_t>(p.len, (64 << 10) / static_cast<int64_t>(sizeof(E))));
  }
  const int64_t ncol = (p.len + chunk - 1) / chunk;
  int64_t per_group = ngroups;
  if (!b_inner && nouter * ncol < want) per_group = std::max<int64_t>(1, ngroups * nouter * ncol / want);
  const int64_t ngr = (ngroups + per_group - 1) / per_group;
  const int64_t units = nouter * ncol * ngr;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
  for (int64_t u = 0; u < units; ++u) {
    const int64_t o = u / (ncol * ngr), rest = u - o * ncol * ngr, c = rest / ngr, gr = rest - c * ngr;
    const int64_t c0 = c * chunk, n = std::min(chunk, p.len - c0);
    const int64_t i0 = group[static_cast<size_t>(gr * per_group)];
    const int64_t i1 = group[static_cast<size_t>(std::min(ngroups, (gr + 1) * per_group))];
    E* s = self + p.o_self[static_cast<size_t>(o)] + c0 * p.ss;
    const E* v = values + p.o_val[static_cast<size_t>(o)] + c0 * p.vs;
    if (b_inner) {
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = i0; i < i1; ++i) {
          const size_t b = static_cast<size_t>(order[static_cast<size_t>(i)]);
          Op::one(s[j * p.ss + p.b_self[b]], v[j * p.vs + p.b_val[b]]);
        }
    } else {
      for (int64_t i = i0; i < i1; ++i) {
        const size_t b = static_cast<size_t>(order[static_cast<size_t>(i)]);
        row<Op>(s + p.b_self[b], v + p.b_val[b], n, p.ss, p.vs);
      }
    }
  }
}

}  // namespace

extern "C" int kgb_aten__index_put_impl_(kgb_tensor* self, const kgb_tensor_list* indices, const kgb_tensor* values,
                                         int accumulate, int unsafe, kgb_stream stream) {
  (void)unsafe;  // the result of valid indices does not depend on it
  (void)stream;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (values->dtype != self->dtype) return KGB_ERR_INVALID;
  Plan p;
  if (const int r = make_plan(self, indices, values, p); r != KGB_OK) return r;
  if (p.nb == 0 || p.len == 0 || p.o_self.empty()) return KGB_OK;
  void* s = self->data;
  const void* v = values->data;
  if (!accumulate) {
    switch (kgb_dtype_size(self->dtype)) {
      case 1: run<Assign<uint8_t>>(p, static_cast<uint8_t*>(s), static_cast<const uint8_t*>(v), false); return KGB_OK;
      case 2: run<Assign<uint16_t>>(p, static_cast<uint16_t*>(s), static_cast<const uint16_t*>(v), false); return KGB_OK;
      case 4: run<Assign<uint32_t>>(p, static_cast<uint32_t*>(s), static_cast<const uint32_t*>(v), false); return KGB_OK;
      case 8: run<Assign<uint64_t>>(p, static_cast<uint64_t*>(s), static_cast<const uint64_t*>(v), false); return KGB_OK;
      default: return KGB_ERR_UNSUPPORTED;
    }
  }
  switch (self->dtype) {
    case KGB_F32: run<Add<float>>(p, static_cast<float*>(s), static_cast<const float*>(v), true); break;
    case KGB_F64: run<Add<double>>(p, static_cast<double*>(s), static_cast<const double*>(v), true); break;
    case KGB_F16: run<AddHalf<false>>(p, static_cast<uint16_t*>(s), static_cast<const uint16_t*>(v), true); break;
    case KGB_BF16: run<AddHalf<true>>(p, static_cast<uint16_t*>(s), static_cast<const uint16_t*>(v), true); break;
    case KGB_I64: run<AddI64>(p, static_cast<int64_t*>(s), static_cast<const int64_t*>(v), true); break;
    case KGB_BOOL: run<OrBool>(p, static_cast<uint8_t*>(s), static_cast<const uint8_t*>(v), true); break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  return KGB_OK;
}
