// aten/mean on the CPU: `mean` (every element) and `mean.dim` (a list of
// dimensions), with ATen's optional result dtype.
//
// A complex tensor is seen as a real one with one more kept dimension (re,
// im: size 2, unit stride) and doubled strides, so every path below serves
// it. The dimensions of self are split into kept and reduced ones, size-1
// dimensions dropped, each group ordered by stride (innermost last) and
// merged where memory allows. Then:
//  - rows: the innermost reduced run has unit stride -> a SIMD sum along it;
//  - slab: the innermost kept dimension has unit stride and the reduced one
//    sits right outside it (x[o][r][i], e.g. 200x40999x3 over the middle, or
//    a complex row): the slab is one contiguous stream read with I*k lanes;
//  - columns: the innermost kept dimension has unit stride -> 64 neighbouring
//    outputs accumulate together, SIMD across them;
//  - anything else: a strided walk per output.
// Few outputs and long reductions: the reduction is cut into fixed-size
// chunks whose sums are added in a fixed order (independent of the threads).
// Accumulators: double for f32/f64 inputs, float for f16/bf16; one division
// by the slice length, one rounding into the result dtype. An empty slice
// gives 0/0 = NaN.
#include <omp.h>
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

// Input element -> accumulator, accumulator -> output element.
struct F32In { using S = float; using A = double; static A load(S v) { return v; } };
struct F64In { using S = double; using A = double; static A load(S v) { return v; } };
struct F16In { using S = uint16_t; using A = float; static A load(S v) { return kgb_f16_to_float(v); } };
struct BF16In { using S = uint16_t; using A = float; static A load(S v) { return kgb_bf16_to_float(v); } };
struct F32Out { using S = float; template <typename A> static S store(A v) { return static_cast<float>(v); } };
struct F64Out { using S = double; template <typename A> static S store(A v) { return static_cast<double>(v); } };
struct F16Out { using S = uint16_t; template <typename A> static S store(A v) { return kgb_float_to_f16(static_cast<float>(v)); } };
struct BF16Out { using S = uint16_t; template <typename A> static S store(A v) { return kgb_float_to_bf16(static_cast<float>(v)); } };

// ---- plan -------------------------------------------------------------------
struct Plan {
  int nk = 0, nr = 0;
  int64_t ks[KGB_MAX_RANK + 1], kx[KGB_MAX_RANK + 1], ky[KGB_MAX_RANK + 1];  // kept: size, self / out stride
  int64_t rs[KGB_MAX_RANK], rx[KGB_MAX_RANK];                                // reduced: size, self stride
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

// dims == nullptr: every dimension (also an empty list). complex: strides in
// reals, plus the (re, im) dimension.
int make_plan(const kgb_tensor* x, const kgb_int_list* dims, int keepdim, const kgb_tensor* y, bool complex, Plan& p) {
  const int rank = x->rank;
  bool reduced[KGB_MAX_RANK] = {false};
  const int64_t nominal = rank == 0 ? 1 : rank;
  const int64_t count = dims ? dims->count : 0;
  for (int64_t i = 0; i < count; ++i) {
    int64_t d = dims->values[i];
    if (d < -nominal || d >= nominal) return KGB_ERR_INVALID;
    if (rank == 0) continue;
    if (d < 0) d += rank;
    if (reduced[d]) return KGB_ERR_INVALID;
    reduced[d] = true;
  }
  if (count == 0)
    for (int d = 0; d < rank; ++d) reduced[d] = true;
  const int64_t scale = complex ? 2 : 1;
  int od = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = x->sizes[d];
    if (reduced[d]) {
      if (keepdim) {
        if (od >= y->rank || y->sizes[od] != 1) return KGB_ERR_INVALID;
        ++od;
      }
      p.len *= size;
      if (size != 1) p.rs[p.nr] = size, p.rx[p.nr] = x->strides[d] * scale, ++p.nr;
      continue;
    }
    if (od >= y->rank || y->sizes[od] != size) return KGB_ERR_INVALID;
    p.outputs *= size;
    if (size != 1) p.ks[p.nk] = size, p.kx[p.nk] = x->strides[d] * scale, p.ky[p.nk] = y->strides[od] * scale, ++p.nk;
    ++od;
  }
  if (od != y->rank) return KGB_ERR_INVALID;
  if (complex) p.ks[p.nk] = 2, p.kx[p.nk] = 1, p.ky[p.nk] = 1, ++p.nk, p.outputs *= 2;
  order_and_merge(p.nk, p.ks, p.kx, p.ky);
  order_and_merge(p.nr, p.rs, p.rx, nullptr);
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
template <typename In>
typename In::A run_sum(const typename In::S* p, int64_t stride, int64_t n) {
  typename In::A acc = 0;
  if (stride == 1) {
#pragma omp simd reduction(+ : acc)
    for (int64_t i = 0; i < n; ++i) acc += In::load(p[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) acc += In::load(p[i * stride]);
  }
  return acc;
}

// Sum over reduced elements [r0, r1) (row-major over the reduced dims).
template <typename In>
typename In::A slice_sum(const Plan& p, const typename In::S* x, int64_t r0, int64_t r1) {
  if (p.nr == 0) return run_sum<In>(x, 1, r1 - r0);
  typename In::A acc = 0;
  const int64_t L = p.rs[p.nr - 1], Ls = p.rx[p.nr - 1];
  while (r0 < r1) {
    const int64_t row = r0 / L, j = r0 - row * L;
    const int64_t n = (L - j < r1 - r0) ? L - j : r1 - r0;
    int64_t off;
    unravel(p.rs, p.rx, nullptr, p.nr - 1, row, &off, nullptr);
    acc += run_sum<In>(x + off + j * Ls, Ls, n);
    r0 += n;
  }
  return acc;
}

// ---- strategies ----------------------------------------------------------------
template <typename In, typename Out>
void per_output(const Plan& p, const typename In::S* x, typename Out::S* y) {
  using A = typename In::A;
  const A n = static_cast<A>(p.len);
  if (p.outputs >= 64 || p.len < 65536) {
#pragma omp parallel for schedule(static) if (p.outputs * p.len > 32768)
    for (int64_t o = 0; o < p.outputs; ++o) {
      int64_t xo, yo;
      unravel(p.ks, p.kx, p.ky, p.nk, o, &xo, &yo);
      y[yo] = Out::store(slice_sum<In>(p, x + xo, 0, p.len) / n);
    }
    return;
  }
  const int64_t chunk = 16384, chunks = (p.len + chunk - 1) / chunk;
  std::vector<A> part(static_cast<size_t>(p.outputs * chunks));
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < p.outputs * chunks; ++t) {
    const int64_t o = t / chunks, c = t - o * chunks;
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk, o, &xo, &yo);
    const int64_t r1 = (c + 1) * chunk < p.len ? (c + 1) * chunk : p.len;
    part[static_cast<size_t>(t)] = slice_sum<In>(p, x + xo, c * chunk, r1);
  }
  for (int64_t o = 0; o < p.outputs; ++o) {
    A acc = 0;
    for (int64_t c = 0; c < chunks; ++c) acc += part[static_cast<size_t>(o * chunks + c)];
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk, o, &xo, &yo);
    y[yo] = Out::store(acc / n);
  }
}

// W lanes of contiguous memory accumulate together over the reduced elements.
// Columns: lane j is output j of the innermost kept dim (unit stride). Slab:
// the innermost reduced dim has stride I (the size of the kept inner dim), so
// k = W / I consecutive reduced steps are one contiguous run of lanes; lane j
// belongs to output j % I.
template <typename In, typename Out, int W>
void lanes(const Plan& p, const typename In::S* x, typename Out::S* y) {
  using A = typename In::A;
  const A n = static_cast<A>(p.len);
  const int64_t I = p.ks[p.nk - 1], Iy = p.ky[p.nk - 1];
  const bool slab = I < W / 2 && p.nr > 0 && p.rx[p.nr - 1] == I;
  const int64_t k = slab ? W / I : 1;
  const int64_t width = slab ? k * I : W;
  const int64_t blocks = slab ? 1 : (I + W - 1) / W;
  const int64_t L = p.nr ? p.rs[p.nr - 1] : 1, Ls = p.nr ? p.rx[p.nr - 1] : 0;
  const int64_t rows = L == 0 ? 0 : p.len / L;
  const int64_t outer = p.outputs / I;
  // Fixed-size chunks of the innermost reduced dim when the blocks are few.
  const int64_t chunks = outer * blocks < 64 && L >= 8192 ? (L + 4095) / 4096 : 1;
  const int64_t piece = (L + chunks - 1) / chunks;
  std::vector<A> part(chunks > 1 ? static_cast<size_t>(outer * blocks * chunks * W) : 0);
  const int64_t items = outer * blocks * chunks;
#pragma omp parallel for schedule(static) if (p.outputs * p.len > 32768)
  for (int64_t t = 0; t < items; ++t) {
    const int64_t c = t % chunks, b = (t / chunks) % blocks, o = t / (chunks * blocks);
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk - 1, o, &xo, &yo);
    const int64_t j0 = b * W;
    const int w = static_cast<int>(slab ? width : (I - j0 < W ? I - j0 : W));
    const int64_t l0 = c * piece, l1 = l0 + piece < L ? l0 + piece : L;
    const int run = static_cast<int>(width);
    A acc[W];
    for (int j = 0; j < W; ++j) acc[j] = 0;
    for (int64_t row = 0; row < rows; ++row) {
      int64_t ro;
      unravel(p.rs, p.rx, nullptr, p.nr > 0 ? p.nr - 1 : 0, row, &ro, nullptr);
      const typename In::S* base = x + xo + ro + j0;
      int64_t l = l0;
      if (w == W || slab) {
        for (; l + k <= l1; l += k) {
          const typename In::S* src = base + l * Ls;
#pragma omp simd
          for (int j = 0; j < run; ++j) acc[j] += In::load(src[j]);
        }
      }
      for (; l < l1; ++l) {  // the tail of a slab, or a partial column block
        const typename In::S* src = base + l * Ls;
        const int m = static_cast<int>(slab ? I : w);
        for (int j = 0; j < m; ++j) acc[j] += In::load(src[j]);
      }
    }
    if (slab)  // fold the k runs of lanes onto the I outputs, in a fixed order
      for (int j = static_cast<int>(I); j < width; ++j) acc[j % I] += acc[j];
    const int n_out = static_cast<int>(slab ? I : w);
    if (chunks > 1) {
      for (int j = 0; j < n_out; ++j) part[static_cast<size_t>(t * W + j)] = acc[j];
      continue;
    }
    for (int j = 0; j < n_out; ++j) y[yo + (j0 + j) * Iy] = Out::store(acc[j] / n);
  }
  if (chunks == 1) return;
  for (int64_t ob = 0; ob < outer * blocks; ++ob) {
    const int64_t o = ob / blocks, j0 = (ob % blocks) * W;
    int64_t xo, yo;
    unravel(p.ks, p.kx, p.ky, p.nk - 1, o, &xo, &yo);
    const int n_out = static_cast<int>(slab ? I : (I - j0 < W ? I - j0 : W));
    for (int j = 0; j < n_out; ++j) {
      A acc = 0;
      for (int64_t c = 0; c < chunks; ++c) acc += part[static_cast<size_t>((ob * chunks + c) * W + j)];
      y[yo + (j0 + j) * Iy] = Out::store(acc / n);
    }
  }
}

template <typename In, typename Out>
void run(const Plan& p, const void* xv, void* yv) {
  const auto* x = static_cast<const typename In::S*>(xv);
  auto* y = static_cast<typename Out::S*>(yv);
  const bool rows = p.nr > 0 && p.rx[p.nr - 1] == 1;
  const bool columns = !rows && p.nk > 0 && p.kx[p.nk - 1] == 1;
  if (columns) lanes<In, Out, 64>(p, x, y);
  else per_output<In, Out>(p, x, y);
}

int mean(const kgb_tensor* self, const kgb_int_list* dims, int keepdim, const int* dtype, kgb_tensor* out) {
  const int32_t in = self->dtype, res = out->dtype;
  if (dtype ? *dtype != res : in != res) return KGB_ERR_INVALID;
  const bool same = in == res;
  const bool ok = (same && (in == KGB_F32 || in == KGB_F64 || in == KGB_F16 || in == KGB_BF16 || in == KGB_C64 ||
                            in == KGB_C128)) ||
                  ((in == KGB_F16 || in == KGB_BF16) && res == KGB_F32) || (in == KGB_F32 && res == KGB_F64) ||
                  (in == KGB_C64 && res == KGB_C128);
  if (!ok) return KGB_ERR_UNSUPPORTED;
  const bool complex = in == KGB_C64 || in == KGB_C128;
  Plan p;
  if (int s = make_plan(self, dims, keepdim, out, complex, p); s != KGB_OK) return s;
  if (p.outputs == 0) return KGB_OK;
  const void* x = self->data;
  void* y = out->data;
  if (in == KGB_F32 || in == KGB_C64) {
    if (res == KGB_F64 || res == KGB_C128) run<F32In, F64Out>(p, x, y);
    else run<F32In, F32Out>(p, x, y);
  } else if (in == KGB_F64 || in == KGB_C128) {
    run<F64In, F64Out>(p, x, y);
  } else if (in == KGB_F16) {
    if (res == KGB_F32) run<F16In, F32Out>(p, x, y);
    else run<F16In, F16Out>(p, x, y);
  } else {
    if (res == KGB_F32) run<BF16In, F32Out>(p, x, y);
    else run<BF16In, BF16Out>(p, x, y);
  }
  return KGB_OK;
}

}  // namespace

extern "C" int kgb_aten_mean(const kgb_tensor* self, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  return mean(self, nullptr, 0, dtype, out);
}

extern "C" int kgb_aten_mean_dim(const kgb_tensor* self, kgb_int_list dim, int keepdim, const int* dtype,
                                 kgb_tensor* out, kgb_stream stream) {
  (void)stream;
  return mean(self, &dim, keepdim, dtype, out);
}
