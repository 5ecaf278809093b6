// aten/argmax on the CPU: position of the largest element along one
// dimension, or of the flattened tensor; NaN is the largest value, the first
// position wins among equals.
//
// The reduced dimensions keep their logical order (merged only where the
// flattened position stays the memory walk's order), so the reduction index
// r in [0, len) is the answer itself. The kept dimensions are ordered by
// stride and merged. Then:
//  - rows: the reduced run has unit stride -> 16 SIMD lanes walk the row,
//    lane j keeping the best value of elements j, j + 16, ... and its block
//    (strictly greater replaces, so each lane keeps its first maximum); the
//    lanes are folded with the smaller position winning ties;
//  - slab: the innermost kept dimension has unit stride and the reduced one
//    has stride I (its size: x[o][r][i], e.g. 200x40999x3 over the middle):
//    the slab is one contiguous stream read with I*k lanes;
//  - columns: the innermost kept dimension has unit stride -> 64 neighbouring
//    outputs advance together, SIMD across them;
//  - anything else: a strided walk per output.
// Few outputs and long reductions: the reduction is cut into chunks, whose
// winners are combined in order (the result never depends on the threads).
// "Greater" is a total order with NaN on top: floats compare with a NaN test,
// f16/bf16 bit patterns map to int16 keys whose integer order is the float
// order (every NaN to the one top key), integers as they are.
#include <omp.h>
#include <stddef.h>
#include <stdint.h>

#include <limits>
#include <vector>

#include "kgb_kernel.h"

namespace {

// K: the compared key; greater(v, m): v replaces the current best m.
template <typename S_>
struct FloatKey {
  using S = S_;
  using K = S_;
  static K key(S v) { return v; }
  static bool greater(K v, K m) { return v > m || (v != v && m == m); }
  static K bottom() { return -std::numeric_limits<S>::infinity(); }
};
template <int kInfBits>
struct HalfKey {  // f16: 0x7c00, bf16: 0x7f80
  using S = uint16_t;
  using K = int16_t;
  // Sign-magnitude -> two's complement; every NaN becomes the one top key.
  static K key(S v) {
    const int16_t mag = static_cast<int16_t>(v & 0x7fff);
    return static_cast<K>(mag > kInfBits ? 0x7fff : ((v & 0x8000) ? -1 - mag : mag));
  }
  static bool greater(K v, K m) { return v > m; }
  static K bottom() { return std::numeric_limits<K>::min(); }
};
template <typename S_>
struct IntKey {
  using S = S_;
  using K = S_;
  static K key(S v) { return v; }
  static bool greater(K v, K m) { return v > m; }
  static K bottom() { return std::numeric_limits<S>::min(); }
};

template <typename T>
struct Best {
  typename T::K m = T::bottom();
  int64_t at = -1;  // reduction index; -1: nothing seen
  // Combines with a candidate that may come earlier or later in the reduction.
  void merge(const Best& o) {
    if (o.at < 0) return;
    if (at < 0 || T::greater(o.m, m) || (!T::greater(m, o.m) && o.at < at)) *this = o;
  }
};

// ---- plan -------------------------------------------------------------------
struct Plan {
  int nk = 0, nr = 0;
  int64_t ks[KGB_MAX_RANK], kx[KGB_MAX_RANK], ky[KGB_MAX_RANK];  // kept: size, self stride, out stride
  int64_t rs[KGB_MAX_RANK], rx[KGB_MAX_RANK];                    // reduced, logical order
  int64_t outputs = 1, len = 1;
};

int64_t mag(int64_t v) { return v < 0 ? -v : v; }

// Merges logical neighbours whose memory order agrees (row-major kept).
void merge_neighbours(int& n, int64_t* s, int64_t* a, int64_t* b) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0 && a[m - 1] == a[i] * s[i] && (!b || b[m - 1] == b[i] * s[i])) {
      s[m - 1] *= s[i];
      a[m - 1] = a[i];
      if (b) b[m - 1] = b[i];
      continue;
    }
    s[m] = s[i], a[m] = a[i];
    if (b) b[m] = b[i];
    ++m;
  }
  n = m;
}

int make_plan(const kgb_tensor* x, const int64_t* dim, int keepdim, const kgb_tensor* y, Plan& p) {
  const int rank = x->rank;
  bool reduced[KGB_MAX_RANK] = {false};
  if (dim) {
    const int64_t nominal = rank == 0 ? 1 : rank;
    if (*dim < -nominal || *dim >= nominal) return KGB_ERR_INVALID;
    if (rank > 0) reduced[*dim < 0 ? *dim + rank : *dim] = true;
  } else {
    for (int d = 0; d < rank; ++d) reduced[d] = true;
  }
  int od = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = x->sizes[d];
    if (reduced[d]) {
      if (keepdim) {
        if (od >= y->rank || y->sizes[od] != 1) return KGB_ERR_INVALID;
        ++od;
      }
      p.len *= size;
      if (size != 1) p.rs[p.nr] = size, p.rx[p.nr] = x->strides[d], ++p.nr;
      continue;
    }
    if (od >= y->rank || y->sizes[od] != size) return KGB_ERR_INVALID;
    p.outputs *= size;
    if (size != 1) p.ks[p.nk] = size, p.kx[p.nk] = x->strides[d], p.ky[p.nk] = y->strides[od], ++p.nk;
    ++od;
  }
  if (od != y->rank) return KGB_ERR_INVALID;
  // Kept dims by decreasing |stride| (their order does not change any answer).
  for (int i = 1; i < p.nk; ++i)
    for (int j = i; j > 0 && mag(p.kx[j - 1]) < mag(p.kx[j]); --j) {
      int64_t t;
      t = p.ks[j], p.ks[j] = p.ks[j - 1], p.ks[j - 1] = t;
      t = p.kx[j], p.kx[j] = p.kx[j - 1], p.kx[j - 1] = t;
      t = p.ky[j], p.ky[j] = p.ky[j - 1], p.ky[j - 1] = t;
    }
  merge_neighbours(p.nk, p.ks, p.kx, p.ky);
  merge_neighbours(p.nr, p.rs, p.rx, nullptr);
  return KGB_OK;
}

void unravel(const int64_t* s, const int64_t* a, const int64_t* b, int n, int64_t i, int64_t* oa, int64_t* ob) {
  int64_t u = 0, v = 0;
  for (int d = n - 1; d >= 0; --d) {
    const int64_t q = i / s[d], r = i - q * s[d];
    i = q;
    u += r * a[d];
    if (b) v += r * b[d];
  }
  *oa = u;
  if (ob) *ob = v;
}

// ---- inner loops ----------------------------------------------------------------
// Best of n elements p[0], p[stride], ...; positions first, first + 1, ...
template <typename T>
Best<T> scan(const typename T::S* p, int64_t stride, int64_t n, int64_t first) {
  using K = typename T::K;
  constexpr int W = 16;
  Best<T> best;
  int64_t i = 0;
  if (stride == 1 && n >= W) {
    K m[W];
    int64_t blk[W];
    for (int j = 0; j < W; ++j) m[j] = T::key(p[j]), blk[j] = 0;
    for (i = W; i + W <= n; i += W) {
#pragma omp simd
      for (int j = 0; j < W; ++j) {
        const K v = T::key(p[i + j]);
        const bool g = T::greater(v, m[j]);
        m[j] = g ? v : m[j];
        blk[j] = g ? i : blk[j];
      }
    }
    for (int j = 0; j < W; ++j) {
      Best<T> c;
      c.m = m[j];
      c.at = first + blk[j] + j;
      best.merge(c);
    }
  }
  for (; i < n; ++i) {
    const K v = T::key(p[i * stride]);
    if (best.at < 0 || T::greater(v, best.m)) best.m = v, best.at = first + i;
  }
  return best;
}

// Best over reduction indices [r0, r1) of the slice starting at x.
template <typename T>
Best<T> slice_best(const Plan& p, const typename T::S* x, int64_t r0, int64_t r1) {
  if (p.nr == 0) return scan<T>(x, 1, r1 - r0, r0);
  Best<T> best;
  const int64_t L = p.rs[p.nr - 1], Ls = p.rx[p.nr - 1];
  while (r0 < r1) {
    const int64_t row = r0 / L, j = r0 - row * L;
    const int64_t n = (L - j < r1 - r0) ? L - j : r1 - r0;
    int64_t off;
    unravel(p.rs, p.rx, nullptr, p.nr - 1, row, &off, nullptr);
    best.merge(scan<T>(x + off + j * Ls, Ls, n, r0));
    r0 += n;
  }
  return best;
}

// ---- strategies ----------------------------------------------------------------
template <typename T>
void per_output(const Plan& p, const typename T::S* x, int64_t* y) {
  const int threads = omp_get_max_threads();
  if (p.outputs >= 4 * threads || p.len < 65536) {
#pragma omp parallel for schedule(static) if (p.outputs * p.len > 32768)
    for (int64_t o = 0; o < p.outputs; ++o) {
      int64_t xo, yo;
      unravel(p.ks, p.kx, p.ky, p.nk, o, &xo, &yo);
      y[yo] = slice_best<T>(p, x + xo, 0, p.len).at;
    }
    return;
  }
  const int64_t chunk = 32768, chunks = (p.len + chunk - 1) / chunk;
  std::vector<Best<T>> part(static_cast<size_t>(p.outputs * chunks));
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < p.outputs * chunks; ++t) {
    const int64_t o = t / chunks, c = t - o * chunks;
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk, o, &xo, &yo);
    const int64_t r1 = (c + 1) * chunk < p.len ? (c + 1) * chunk : p.len;
    part[static_cast<size_t>(t)] = slice_best<T>(p, x + xo, c * chunk, r1);
  }
  for (int64_t o = 0; o < p.outputs; ++o) {
    Best<T> best;
    for (int64_t c = 0; c < chunks; ++c) best.merge(part[static_cast<size_t>(o * chunks + c)]);
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk, o, &xo, &yo);
    y[yo] = best.at;
  }
}

// W lanes of contiguous memory advance together over the innermost reduced
// dim (argmax reduces one dim, or all of them, then merged into one when the
// memory walk is row-major; otherwise the strided walk above serves). Columns:
// lane j is output j of the innermost kept dim. Slab: the reduced dim has
// stride I, so k = W / I consecutive reduction steps are one contiguous run;
// lane j serves output j % I at reduction index l + j / I.
template <typename T, int W>
void lanes(const Plan& p, const typename T::S* x, int64_t* y) {
  using K = typename T::K;
  const int64_t I = p.ks[p.nk - 1], Iy = p.ky[p.nk - 1];
  const int64_t L = p.nr ? p.rs[0] : 1, Ls = p.nr ? p.rx[0] : 0;
  const bool slab = I < W / 2 && p.nr == 1 && Ls == I;
  const int64_t k = slab ? W / I : 1;
  const int64_t width = slab ? k * I : W;
  const int64_t blocks = slab ? 1 : (I + W - 1) / W;
  const int64_t outer = p.outputs / I;
  const int threads = omp_get_max_threads();
  int64_t chunks = 1;
  if (outer * blocks < 4 * threads && L >= 4096) chunks = (4 * threads + outer * blocks - 1) / (outer * blocks);
  const int64_t piece = (L + chunks - 1) / chunks;
  std::vector<Best<T>> part(chunks > 1 ? static_cast<size_t>(outer * blocks * chunks * W) : 0);
  const int64_t items = outer * blocks * chunks;
#pragma omp parallel for schedule(static) if (p.outputs * p.len > 32768)
  for (int64_t t = 0; t < items; ++t) {
    const int64_t c = t % chunks, b = (t / chunks) % blocks, o = t / (chunks * blocks);
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk - 1, o, &xo, &yo);
    const int64_t j0 = b * W;
    const int w = static_cast<int>(slab ? width : (I - j0 < W ? I - j0 : W));
    const int64_t l0 = c * piece, l1 = l0 + piece < L ? l0 + piece : L;
    const typename T::S* base = x + xo + j0;
    K m[W];
    int64_t at[W];
    for (int j = 0; j < W; ++j) m[j] = T::bottom(), at[j] = -1;
    int64_t l = l0;
    const int run = static_cast<int>(width);
    if (w == W || slab) {
      for (; l + k <= l1; l += k) {
        const typename T::S* src = base + l * Ls;
#pragma omp simd
        for (int j = 0; j < run; ++j) {
          const K v = T::key(src[j]);
          const bool g = at[j] < 0 || T::greater(v, m[j]);
          m[j] = g ? v : m[j];
          at[j] = g ? l : at[j];
        }
      }
    }
    const int n_out = static_cast<int>(slab ? I : w);
    Best<T> best[W];
    for (int j = 0; j < run; ++j) {
      if (at[j] < 0) continue;
      best[j].m = m[j];
      best[j].at = at[j] + (slab ? j / I : 0);
    }
    if (slab)
      for (int j = n_out; j < run; ++j) best[j % I].merge(best[j]);
    for (; l < l1; ++l) {  // the tail of a slab, or a partial column block
      const typename T::S* src = base + l * Ls;
      for (int j = 0; j < n_out; ++j) {
        Best<T> c1;
        c1.m = T::key(src[j]);
        c1.at = l;
        best[j].merge(c1);
      }
    }
    if (chunks > 1) {
      for (int j = 0; j < n_out; ++j) part[static_cast<size_t>(t * W + j)] = best[j];
      continue;
    }
    for (int j = 0; j < n_out; ++j) y[yo + (j0 + j) * Iy] = best[j].at;
  }
  if (chunks == 1) return;
  for (int64_t ob = 0; ob < outer * blocks; ++ob) {
    const int64_t o = ob / blocks, j0 = (ob % blocks) * W;
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk - 1, o, &xo, &yo);
    const int n_out = static_cast<int>(slab ? I : (I - j0 < W ? I - j0 : W));
    for (int j = 0; j < n_out; ++j) {
      Best<T> best;
      for (int64_t c = 0; c < chunks; ++c) best.merge(part[static_cast<size_t>((ob * chunks + c) * W + j)]);
      y[yo + (j0 + j) * Iy] = best.at;
    }
  }
}

template <typename T>
void run(const Plan& p, const void* xv, int64_t* y) {
  const auto* x = static_cast<const typename T::S*>(xv);
  const bool rows = p.nr > 0 && p.rx[p.nr - 1] == 1;
  const bool columns = !rows && p.nr <= 1 && p.nk > 0 && p.kx[p.nk - 1] == 1;
  if (columns) lanes<T, 64>(p, x, y);
  else per_output<T>(p, x, y);
}

}  // namespace

extern "C" int kgb_aten_argmax(const kgb_tensor* self, const int64_t* dim, int keepdim, kgb_tensor* out,
                               kgb_stream stream) {
  (void)stream;
  if (out->dtype != KGB_I64) return KGB_ERR_INVALID;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  Plan p;
  if (int s = make_plan(self, dim, keepdim, out, p); s != KGB_OK) return s;
  if (p.outputs == 0) return KGB_OK;
  if (p.len == 0) return KGB_ERR_INVALID;  // ATen refuses an empty reduction
  auto* y = static_cast<int64_t*>(out->data);
  switch (self->dtype) {
    case KGB_F32: run<FloatKey<float>>(p, self->data, y); break;
    case KGB_F64: run<FloatKey<double>>(p, self->data, y); break;
    case KGB_F16: run<HalfKey<0x7c00>>(p, self->data, y); break;
    case KGB_BF16: run<HalfKey<0x7f80>>(p, self->data, y); break;
    case KGB_I32: run<IntKey<int32_t>>(p, self->data, y); break;
    case KGB_I64: run<IntKey<int64_t>>(p, self->data, y); break;
  }
  return KGB_OK;
}
