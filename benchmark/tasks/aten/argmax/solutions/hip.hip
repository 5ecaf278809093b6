// aten/argmax on HIP (a port of the CUDA solution; compiled for gfx90a):
// position of the largest element along one dimension or of the flattened
// tensor; NaN is the largest value, the first position wins among equals.
//
// Host: the reduced dimensions keep their logical order (merged only where
// the flattened position follows the memory walk), so the reduction index r
// is the answer itself; the kept dimensions are ordered by stride and
// merged. If the innermost kept dimension is more contiguous than the
// reduced one (a reduction over an outer dimension, e.g. 200x40999x3 over
// the middle), it becomes the block's lane dimension.
//
// Device: one block per (outer output, group of up to 32 lanes). Thread t
// serves lane t % lanes and reduction indices t / lanes, t / lanes + k, ...
// in increasing order (a strictly greater value replaces its best, so each
// thread keeps its first maximum): with the lane dimension contiguous and
// the reduced stride equal to the lane count the block reads one contiguous
// stream. A contiguous row with no lane dimension is read with 16-byte
// vector loads. The k candidates of each lane meet in a shared-memory tree,
// the smaller position winning ties.
// Values compare in float (f32/f16/bf16), double or the integer type.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kMaxThreads = 1024;

// Per dtype: storage S, compare type C and the conversion between them.
struct F32 {
  using S = float;
  using C = float;
  static __device__ __forceinline__ C load(S v) { return v; }
};
struct F64 {
  using S = double;
  using C = double;
  static __device__ __forceinline__ C load(S v) { return v; }
};
struct F16 {
  using S = uint16_t;
  using C = float;
  static __device__ __forceinline__ C load(S v) { return kgb_f16_to_float(v); }
};
struct BF16 {
  using S = uint16_t;
  using C = float;
  static __device__ __forceinline__ C load(S v) { return kgb_bf16_to_float(v); }
};
struct I32 {
  using S = int32_t;
  using C = int32_t;
  static __device__ __forceinline__ C load(S v) { return v; }
};
struct I64 {
  using S = int64_t;
  using C = int64_t;
  static __device__ __forceinline__ C load(S v) { return v; }
};

// v beats the current best m: greater, or a NaN over a number (NaN is largest).
template <typename C>
__device__ __forceinline__ bool beats(C v, C m) {
  return v > m || (v != v && m == m);  // the NaN test is false for integers
}
template <typename C>
__device__ __forceinline__ void take(C v, int64_t r, C& m, int64_t& at) {
  if (at < 0 || beats(v, m)) m = v, at = r;
}

struct Plan {
  int nk = 0, nr = 0;                                             // outer kept dims, reduced dims
  int64_t ks[KGB_MAX_RANK], kx[KGB_MAX_RANK], ky[KGB_MAX_RANK];  // outer kept: size, self / out stride
  int64_t rs[KGB_MAX_RANK], rx[KGB_MAX_RANK];                    // reduced: size, self stride
  int64_t lanes = 1, lx = 0, ly = 0;                              // lane dim: size, self / out stride
  int64_t outer = 1, len = 1;
  int lane_block = 1, k = 1, groups = 1;  // lanes per block, threads per lane, lane groups
};

__device__ __forceinline__ int64_t reduced_offset(const Plan& p, int64_t r) {
  if (p.nr <= 1) return p.nr ? r * p.rx[0] : 0;
  int64_t off = 0;
  for (int d = p.nr - 1; d >= 0; --d) {
    const int64_t q = r / p.rs[d];
    off += (r - q * p.rs[d]) * p.rx[d];
    r = q;
  }
  return off;
}

template <typename O>
__global__ void __launch_bounds__(kMaxThreads) argmax_kernel(const typename O::S* __restrict__ x,
                                                             int64_t* __restrict__ y, Plan p) {
  using S = typename O::S;
  using C = typename O::C;
  __shared__ C sm[kMaxThreads];
  __shared__ int64_t sa[kMaxThreads];
  const int t = threadIdx.x;
  const int64_t o = blockIdx.x / p.groups, g = blockIdx.x - o * p.groups;
  int64_t xo = 0, yo = 0, rest = o;
  for (int d = p.nk - 1; d >= 0; --d) {
    const int64_t q = rest / p.ks[d], i = rest - q * p.ks[d];
    rest = q;
    xo += i * p.kx[d];
    yo += i * p.ky[d];
  }
  const int lane = t % p.lane_block, r0 = t / p.lane_block;
  const int64_t li = g * p.lane_block + lane;
  const bool active = r0 < p.k && li < p.lanes;
  C m = C(0);
  int64_t at = -1;
  if (active) {
    const S* base = x + xo + li * p.lx;
    if (p.lanes == 1 && p.nr == 1 && p.rx[0] == 1) {
      // Contiguous row: scalar head up to 16-byte alignment, vector body, scalar tail.
      constexpr int V = 16 / sizeof(S);
      const int64_t mis = (reinterpret_cast<uintptr_t>(base) % 16) / sizeof(S);
      const int64_t head = mis == 0 ? 0 : (V - mis < p.len ? V - mis : p.len);
      if (r0 < head) take(O::load(base[r0]), r0, m, at);
      const int64_t nvec = (p.len - head) / V;
      const uint4* vec = reinterpret_cast<const uint4*>(base + head);
#pragma unroll 4
      for (int64_t v = r0; v < nvec; v += p.k) {
        const uint4 raw = vec[v];
        const S* e = reinterpret_cast<const S*>(&raw);
#pragma unroll
        for (int j = 0; j < V; ++j) take(O::load(e[j]), head + v * V + j, m, at);
      }
      for (int64_t r = head + nvec * V + r0; r < p.len; r += p.k) take(O::load(base[r]), r, m, at);
    } else if (p.nr <= 1) {
      const int64_t rx = p.nr ? p.rx[0] : 0;
#pragma unroll 4
      for (int64_t r = r0; r < p.len; r += p.k) take(O::load(base[r * rx]), r, m, at);
    } else {
      for (int64_t r = r0; r < p.len; r += p.k) take(O::load(base[reduced_offset(p, r)]), r, m, at);
    }
  }
  sm[t] = m;
  sa[t] = at;
  __syncthreads();
  for (int s = p.k / 2; s > 0; s >>= 1) {
    if (active && r0 < s) {
      const int u = t + s * p.lane_block;
      const C v = sm[u], w = sm[t];
      const int64_t va = sa[u], wa = sa[t];
      if (va >= 0 && (wa < 0 || beats(v, w) || (!beats(w, v) && va < wa))) sm[t] = v, sa[t] = va;
    }
    __syncthreads();
  }
  if (active && r0 == 0) y[yo + li * p.ly] = sa[t];
}

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

// Orders dims by decreasing |stride a| (innermost last) and merges neighbours.
void order_and_merge(int& n, int64_t* s, int64_t* a, int64_t* b) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && mag(a[j - 1]) < mag(a[j]); --j) {
      int64_t t;
      t = s[j], s[j] = s[j - 1], s[j - 1] = t;
      t = a[j], a[j] = a[j - 1], a[j - 1] = t;
      if (b) t = b[j], b[j] = b[j - 1], b[j - 1] = t;
    }
  merge_neighbours(n, s, a, b);
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
    p.outer *= size;
    if (size != 1) p.ks[p.nk] = size, p.kx[p.nk] = x->strides[d], p.ky[p.nk] = y->strides[od], ++p.nk;
    ++od;
  }
  if (od != y->rank) return KGB_ERR_INVALID;
  order_and_merge(p.nk, p.ks, p.kx, p.ky);
  merge_neighbours(p.nr, p.rs, p.rx, nullptr);
  // The innermost kept dim becomes the lane dim when it is more contiguous than the reduction.
  if (p.nk > 0 && (p.nr == 0 || mag(p.kx[p.nk - 1]) < mag(p.rx[p.nr - 1]))) {
    --p.nk;
    p.lanes = p.ks[p.nk];
    p.lx = p.kx[p.nk];
    p.ly = p.ky[p.nk];
    p.outer /= p.lanes;
  }
  return KGB_OK;
}

int pow2_at_least(int64_t v) {
  int p = 1;
  while (p < v && p < kMaxThreads) p <<= 1;
  return p;
}

template <typename O>
int launch(const kgb_tensor* self, kgb_tensor* out, Plan& p, hipStream_t stream) {
  using S = typename O::S;
  p.lane_block = static_cast<int>(p.lanes < 32 ? p.lanes : 32);
  const int kmax = kMaxThreads / pow2_at_least(p.lane_block);
  const int64_t work = p.lanes == 1 && p.nr == 1 && p.rx[0] == 1 ? (p.len + 3) / 4 : p.len;
  p.k = pow2_at_least(work) < kmax ? pow2_at_least(work) : kmax;
  p.groups = static_cast<int>((p.lanes + p.lane_block - 1) / p.lane_block);
  int threads = p.k * p.lane_block;
  threads = (threads + 31) / 32 * 32;
  const int64_t blocks = p.outer * p.groups;
  argmax_kernel<O><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(static_cast<const S*>(self->data),
                                                                          static_cast<int64_t*>(out->data), p);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_argmax(const kgb_tensor* self, const int64_t* dim, int keepdim, kgb_tensor* out,
                               kgb_stream stream) {
  if (out->dtype != KGB_I64) return KGB_ERR_INVALID;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  Plan p;
  if (int s = make_plan(self, dim, keepdim, out, p); s != KGB_OK) return s;
  if (p.outer * p.lanes == 0) return KGB_OK;
  if (p.len == 0) return KGB_ERR_INVALID;  // ATen refuses an empty reduction
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (self->dtype) {
    case KGB_F32: return launch<F32>(self, out, p, s);
    case KGB_F64: return launch<F64>(self, out, p, s);
    case KGB_F16: return launch<F16>(self, out, p, s);
    case KGB_BF16: return launch<BF16>(self, out, p, s);
    case KGB_I32: return launch<I32>(self, out, p, s);
    case KGB_I64: return launch<I64>(self, out, p, s);
  }
  return KGB_ERR_UNSUPPORTED;
}
