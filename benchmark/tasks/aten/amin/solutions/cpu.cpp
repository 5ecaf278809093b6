// aten/amin on the CPU: minimum over a list of dimensions, NaN propagating.
//
// The dimensions of self are split into kept and reduced ones, size-1
// dimensions dropped, each group ordered by stride (innermost last) and
// neighbours merged where memory allows. Then:
//  - rows: the innermost reduced run has unit stride -> a SIMD min along it;
//  - slab: the innermost kept dimension has unit stride and the reduced one
//    sits right outside it (x[o][r][i], e.g. 200x40999x3 over the middle):
//    the slab is one contiguous stream read with I*k lanes;
//  - columns: the innermost kept dimension has unit stride -> 64 neighbouring
//    outputs advance together, SIMD across them;
//  - anything else: a strided walk per output.
// Few outputs and long reductions: the reduction is cut into chunks whose
// minima are combined afterwards (min is exact, so the order never matters).
//
// Comparison keys: floats compare as themselves with a separate NaN flag;
// f16/bf16 bit patterns map to int16 keys whose integer order is the float
// order (sign-magnitude to two's complement), so the 16-bit types need no
// conversion at all; integers compare as themselves.
#include <omp.h>
#include <stdint.h>
#include <stddef.h>

#include <limits>
#include <vector>

#include "kgb_kernel.h"

namespace {

template <typename S_>
struct FloatKey {
  using S = S_;
  using K = S_;
  static K key(S v) { return v; }
  static int nan(S v) { return v != v; }
  static K top() { return std::numeric_limits<S>::infinity(); }
  static S result(K m, int nan) { return nan ? std::numeric_limits<S>::quiet_NaN() : m; }
};
template <int kInfBits, int kNanBits>
struct HalfKey {  // f16: 0x7c00 / 0x7e00; bf16: 0x7f80 / 0x7fc0
  using S = uint16_t;
  using K = int16_t;
  static K key(S v) { return static_cast<K>(v ^ ((static_cast<int16_t>(v) >> 15) & 0x7fff)); }
  static int nan(S v) { return (v & 0x7fff) > kInfBits; }
  static K top() { return std::numeric_limits<K>::max(); }
  static S result(K m, int nan) {
    return nan ? static_cast<S>(kNanBits) : static_cast<S>(static_cast<uint16_t>(m) ^ ((m >> 15) & 0x7fff));
  }
};
template <typename S_>
struct IntKey {
  using S = S_;
  using K = S_;
  static K key(S v) { return v; }
  static int nan(S) { return 0; }
  static K top() { return std::numeric_limits<S>::max(); }
  static S result(K m, int) { return m; }
};

// A running minimum: the key and whether a NaN was seen.
template <typename T>
struct Min {
  typename T::K m = T::top();
  int nan = 0;
  void merge(const Min& o) {
    m = o.m < m ? o.m : m;
    nan |= o.nan;
  }
};

// ---- plan -------------------------------------------------------------------
struct Plan {
  int nk = 0, nr = 0;
  int64_t ks[KGB_MAX_RANK], kx[KGB_MAX_RANK], ky[KGB_MAX_RANK];  // kept: size, self stride, out stride
  int64_t rs[KGB_MAX_RANK], rx[KGB_MAX_RANK];                    // reduced: size, self stride
  int64_t outputs = 1, len = 1;
};

int64_t mag(int64_t v) { return v < 0 ? -v : v; }

// Orders dims by decreasing |stride| (innermost last) and merges neighbours.
void order_and_merge(int& n, int64_t* s, int64_t* a, int64_t* b) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && mag(a[j - 1]) < mag(a[j]); --j) {
      int64_t t;
      t = s[j], s[j] = s[j - 1], s[j - 1] = t;
      t = a[j], a[j] = a[j - 1], a[j - 1] = t;
      if (b) t = b[j], b[j] = b[j - 1], b[j - 1] = t;
    }
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

// KGB_OK, or KGB_ERR_INVALID for a bad dim list or a mismatched out.
int make_plan(const kgb_tensor* x, kgb_int_list dim, int keepdim, const kgb_tensor* y, Plan& p) {
  const int rank = x->rank;
  bool reduced[KGB_MAX_RANK] = {false};
  const int64_t nominal = rank == 0 ? 1 : rank;
  for (int64_t i = 0; i < dim.count; ++i) {
    int64_t d = dim.values[i];
    if (d < -nominal || d >= nominal) return KGB_ERR_INVALID;
    if (rank == 0) continue;
    if (d < 0) d += rank;
    if (reduced[d]) return KGB_ERR_INVALID;
    reduced[d] = true;
  }
  if (dim.count == 0)
    for (int d = 0; d < rank; ++d) reduced[d] = true;
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
  order_and_merge(p.nk, p.ks, p.kx, p.ky);
  order_and_merge(p.nr, p.rs, p.rx, nullptr);
  return KGB_OK;
}

// Offsets of element i of dims [0, n) (row-major), in two tensors.
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
template <typename T>
void scan(const typename T::S* p, int64_t stride, int64_t n, Min<T>& acc) {
  using K = typename T::K;
  K m = acc.m;
  int nan = acc.nan;
  if (stride == 1) {
#pragma omp simd reduction(min : m) reduction(| : nan)
    for (int64_t i = 0; i < n; ++i) {
      const K k = T::key(p[i]);
      m = k < m ? k : m;
      nan |= T::nan(p[i]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const K k = T::key(p[i * stride]);
      m = k < m ? k : m;
      nan |= T::nan(p[i * stride]);
    }
  }
  acc.m = m;
  acc.nan = nan;
}

// Minimum over reduced elements [r0, r1) (row-major over the reduced dims) of
// the slice starting at x: rows of the innermost reduced dim.
template <typename T>
Min<T> slice_min(const Plan& p, const typename T::S* x, int64_t r0, int64_t r1) {
  Min<T> acc;
  if (p.nr == 0) {
    scan<T>(x, 1, r1 - r0, acc);
    return acc;
  }
  const int64_t L = p.rs[p.nr - 1], Ls = p.rx[p.nr - 1];
  while (r0 < r1) {
    const int64_t row = r0 / L, j = r0 - row * L;
    const int64_t n = (L - j < r1 - r0) ? L - j : r1 - r0;
    int64_t off;
    unravel(p.rs, p.rx, nullptr, p.nr - 1, row, &off, nullptr);
    scan<T>(x + off + j * Ls, Ls, n, acc);
    r0 += n;
  }
  return acc;
}

// ---- strategies ----------------------------------------------------------------
// One output after another, each its own reduction; when the outputs are too
// few for the threads, each reduction is cut into chunks.
template <typename T>
void per_output(const Plan& p, const typename T::S* x, typename T::S* y) {
  const int threads = omp_get_max_threads();
  if (p.outputs >= 4 * threads || p.len < 65536) {
#pragma omp parallel for schedule(static) if (p.outputs * p.len > 32768)
    for (int64_t o = 0; o < p.outputs; ++o) {
      int64_t xo, yo;
      unravel(p.ks, p.kx, p.ky, p.nk, o, &xo, &yo);
      const Min<T> acc = slice_min<T>(p, x + xo, 0, p.len);
      y[yo] = T::result(acc.m, acc.nan);
    }
    return;
  }
  const int64_t chunk = 32768, chunks = (p.len + chunk - 1) / chunk;
  std::vector<Min<T>> part(static_cast<size_t>(p.outputs * chunks));
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < p.outputs * chunks; ++t) {
    const int64_t o = t / chunks, c = t - o * chunks;
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk, o, &xo, &yo);
    const int64_t r1 = (c + 1) * chunk < p.len ? (c + 1) * chunk : p.len;
    part[static_cast<size_t>(t)] = slice_min<T>(p, x + xo, c * chunk, r1);
  }
  for (int64_t o = 0; o < p.outputs; ++o) {
    Min<T> acc;
    for (int64_t c = 0; c < chunks; ++c) acc.merge(part[static_cast<size_t>(o * chunks + c)]);
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk, o, &xo, &yo);
    y[yo] = T::result(acc.m, acc.nan);
  }
}

// W lanes of contiguous memory advance together over the reduced elements.
// Columns: lane j is output j of the innermost kept dim (unit stride) and the
// reduced steps are the reduced elements. Slab: the innermost reduced dim has
// stride I (the size of the kept inner dim), so k = lanes / I consecutive
// reduced steps are one contiguous run of lanes; lane j belongs to output j % I.
template <typename T, int W>
void lanes(const Plan& p, const typename T::S* x, typename T::S* y) {
  using K = typename T::K;
  const int64_t I = p.ks[p.nk - 1], Iy = p.ky[p.nk - 1];
  const bool slab = I < W / 2 && p.nr > 0 && p.rx[p.nr - 1] == I;
  const int64_t k = slab ? W / I : 1;    // reduced steps per lane run
  const int64_t width = slab ? k * I : W;  // lanes in use
  const int64_t blocks = slab ? 1 : (I + W - 1) / W;
  const int64_t L = p.nr ? p.rs[p.nr - 1] : 1, Ls = p.nr ? p.rx[p.nr - 1] : 0;
  const int64_t rows = p.len / L;  // iterations of the outer reduced dims
  const int64_t outer = p.outputs / I;
  // Chunks of the innermost reduced dim when outer x blocks cannot feed every thread.
  const int threads = omp_get_max_threads();
  int64_t chunks = 1;
  if (outer * blocks < 4 * threads && L >= 4096) chunks = (4 * threads + outer * blocks - 1) / (outer * blocks);
  const int64_t piece = (L + chunks - 1) / chunks;
  std::vector<Min<T>> part(chunks > 1 ? static_cast<size_t>(outer * blocks * chunks * W) : 0);
  const int64_t items = outer * blocks * chunks;
#pragma omp parallel for schedule(static) if (p.outputs * p.len > 32768)
  for (int64_t t = 0; t < items; ++t) {
    const int64_t c = t % chunks, b = (t / chunks) % blocks, o = t / (chunks * blocks);
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk - 1, o, &xo, &yo);
    const int64_t j0 = b * W;
    const int w = static_cast<int>(slab ? width : (I - j0 < W ? I - j0 : W));
    const int64_t l0 = c * piece, l1 = l0 + piece < L ? l0 + piece : L;
    K m[W];
    int nan[W];
    for (int j = 0; j < W; ++j) m[j] = T::top(), nan[j] = 0;
    for (int64_t row = 0; row < rows; ++row) {
      int64_t ro;
      unravel(p.rs, p.rx, nullptr, p.nr > 0 ? p.nr - 1 : 0, row, &ro, nullptr);
      const typename T::S* base = x + xo + ro + j0;
      int64_t l = l0;
      const int run = static_cast<int>(width);
      if (w == W || slab) {
        for (; l + k <= l1; l += k) {
          const typename T::S* src = base + l * Ls;
#pragma omp simd
          for (int j = 0; j < run; ++j) {
            const K v = T::key(src[j]);
            m[j] = v < m[j] ? v : m[j];
            nan[j] |= T::nan(src[j]);
          }
        }
      }
      for (; l < l1; ++l) {  // the tail of a slab, or a partial column block
        const typename T::S* src = base + l * Ls;
        const int n = static_cast<int>(slab ? I : w);
        for (int j = 0; j < n; ++j) {
          const K v = T::key(src[j]);
          m[j] = v < m[j] ? v : m[j];
          nan[j] |= T::nan(src[j]);
        }
      }
    }
    Min<T> out[W];
    for (int j = 0; j < W; ++j) out[j].m = m[j], out[j].nan = nan[j];
    if (slab)  // fold the k runs of lanes onto the I outputs
      for (int j = static_cast<int>(I); j < width; ++j) out[j % I].merge(out[j]);
    const int n_out = static_cast<int>(slab ? I : w);
    if (chunks > 1) {
      for (int j = 0; j < n_out; ++j) part[static_cast<size_t>(t * W + j)] = out[j];
      continue;
    }
    for (int j = 0; j < n_out; ++j) y[yo + (j0 + j) * Iy] = T::result(out[j].m, out[j].nan);
  }
  if (chunks == 1) return;
  for (int64_t ob = 0; ob < outer * blocks; ++ob) {
    const int64_t o = ob / blocks, j0 = (ob % blocks) * W;
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk - 1, o, &xo, &yo);
    const int n_out = static_cast<int>(slab ? I : (I - j0 < W ? I - j0 : W));
    for (int j = 0; j < n_out; ++j) {
      Min<T> acc;
      for (int64_t c = 0; c < chunks; ++c) acc.merge(part[static_cast<size_t>((ob * chunks + c) * W + j)]);
      y[yo + (j0 + j) * Iy] = T::result(acc.m, acc.nan);
    }
  }
}

template <typename T>
void run(const Plan& p, const void* xv, void* yv) {
  const auto* x = static_cast<const typename T::S*>(xv);
  auto* y = static_cast<typename T::S*>(yv);
  const bool rows = p.nr > 0 && p.rx[p.nr - 1] == 1;
  const bool columns = !rows && p.nk > 0 && p.kx[p.nk - 1] == 1;
  if (columns) lanes<T, 64>(p, x, y);
  else per_output<T>(p, x, y);
}

}  // namespace

extern "C" int kgb_aten_amin(const kgb_tensor* self, kgb_int_list dim, int keepdim, kgb_tensor* out,
                             kgb_stream stream) {
  (void)stream;
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  Plan p;
  if (int s = make_plan(self, dim, keepdim, out, p); s != KGB_OK) return s;
  if (p.outputs == 0) return KGB_OK;
  if (p.len == 0) return KGB_ERR_INVALID;  // ATen refuses an empty reduction
  switch (self->dtype) {
    case KGB_F32: run<FloatKey<float>>(p, self->data, out->data); break;
    case KGB_F64: run<FloatKey<double>>(p, self->data, out->data); break;
    case KGB_F16: run<HalfKey<0x7c00, 0x7e00>>(p, self->data, out->data); break;
    case KGB_BF16: run<HalfKey<0x7f80, 0x7fc0>>(p, self->data, out->data); break;
    case KGB_I32: run<IntKey<int32_t>>(p, self->data, out->data); break;
    case KGB_I64: run<IntKey<int64_t>>(p, self->data, out->data); break;
  }
  return KGB_OK;
}
