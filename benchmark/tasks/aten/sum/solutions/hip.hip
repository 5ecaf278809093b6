// aten/sum on HIP (a port of the CUDA solution; compiled for gfx90a): `sum`
// (every element) and `sum.dim_IntList` (a list of dimensions), with ATen's
// promotion (integers and bool into int64) and optional result dtype.
//
// Host: a complex tensor is seen as a real one with one more kept dimension
// (re, im: size 2, unit stride) and doubled strides. The dimensions of self
// are split into kept and reduced ones, size-1 dimensions dropped, each group
// ordered by stride (innermost last) and merged where memory allows. If the
// innermost kept dimension is more contiguous than every reduced one (a
// reduction over an outer dimension, e.g. 200x40999x3 over the middle, or the
// (re, im) pair), it becomes the block's lane dimension.
//
// Device: one block per (outer output, group of up to 32 lanes). Thread t
// serves lane t % lanes and reduced elements t / lanes, t / lanes + k, ...:
// with the lane dimension contiguous and the reduced stride equal to the
// lane count, the block reads one contiguous stream. A contiguous row with no
// lane dimension is read with 16-byte vector loads. The k partial sums of
// each lane meet in a shared-memory tree (a fixed order: the result is
// deterministic); one rounding into the result dtype.
// Accumulators: double for f32/f64 inputs, float for f16/bf16, int64 for
// integers and bool. An empty slice sums to 0.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kMaxThreads = 1024;

// Input element (S) -> accumulator A; accumulator -> output element (D).
struct F32In { using S = float; using A = double; static __device__ __forceinline__ A load(S v) { return v; } };
struct F64In { using S = double; using A = double; static __device__ __forceinline__ A load(S v) { return v; } };
struct F16In {
  using S = uint16_t;
  using A = float;
  static __device__ __forceinline__ A load(S v) { return kgb_f16_to_float(v); }
};
struct BF16In {
  using S = uint16_t;
  using A = float;
  static __device__ __forceinline__ A load(S v) { return kgb_bf16_to_float(v); }
};
struct I32In { using S = int32_t; using A = int64_t; static __device__ __forceinline__ A load(S v) { return v; } };
struct I64In { using S = int64_t; using A = int64_t; static __device__ __forceinline__ A load(S v) { return v; } };
struct U8In { using S = uint8_t; using A = int64_t; static __device__ __forceinline__ A load(S v) { return v; } };
struct BoolIn { using S = uint8_t; using A = int64_t; static __device__ __forceinline__ A load(S v) { return v != 0; } };
struct I64Out {
  using D = int64_t;
  template <typename A> static __device__ __forceinline__ D store(A v) { return static_cast<int64_t>(v); }
};
struct I32Out {
  using D = int32_t;
  template <typename A> static __device__ __forceinline__ D store(A v) { return static_cast<int32_t>(v); }
};
struct F32Out {
  using D = float;
  template <typename A> static __device__ __forceinline__ D store(A v) { return static_cast<float>(v); }
};
struct F64Out {
  using D = double;
  template <typename A> static __device__ __forceinline__ D store(A v) { return static_cast<double>(v); }
};
struct F16Out {
  using D = uint16_t;
  template <typename A> static __device__ __forceinline__ D store(A v) { return kgb_float_to_f16(static_cast<float>(v)); }
};
struct BF16Out {
  using D = uint16_t;
  template <typename A> static __device__ __forceinline__ D store(A v) { return kgb_float_to_bf16(static_cast<float>(v)); }
};

struct Plan {
  int nk = 0, nr = 0;                                             // outer kept dims, reduced dims
  int64_t ks[KGB_MAX_RANK + 1], kx[KGB_MAX_RANK + 1], ky[KGB_MAX_RANK + 1];  // outer kept: size, self / out stride
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

template <typename I, typename O>
__global__ void __launch_bounds__(kMaxThreads) sum_kernel(const typename I::S* __restrict__ x,
                                                           typename O::D* __restrict__ y, Plan p) {
  using S = typename I::S;
  using A = typename I::A;
  __shared__ A sm[kMaxThreads];
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
  A acc = 0;
  if (active) {
    const S* base = x + xo + li * p.lx;
    if (p.lanes == 1 && p.nr == 1 && p.rx[0] == 1) {
      // Contiguous row: scalar head up to 16-byte alignment, vector body, scalar tail.
      constexpr int V = 16 / sizeof(S);
      const int64_t mis = (reinterpret_cast<uintptr_t>(base) % 16) / sizeof(S);
      const int64_t head = mis == 0 ? 0 : (V - mis < p.len ? V - mis : p.len);
      if (r0 < head) acc += I::load(base[r0]);
      const int64_t nvec = (p.len - head) / V;
      const uint4* vec = reinterpret_cast<const uint4*>(base + head);
#pragma unroll 4
      for (int64_t v = r0; v < nvec; v += p.k) {
        const uint4 raw = vec[v];
        const S* e = reinterpret_cast<const S*>(&raw);
#pragma unroll
        for (int j = 0; j < V; ++j) acc += I::load(e[j]);
      }
      for (int64_t r = head + nvec * V + r0; r < p.len; r += p.k) acc += I::load(base[r]);
    } else if (p.nr <= 1) {
      const int64_t rx = p.nr ? p.rx[0] : 0;
#pragma unroll 4
      for (int64_t r = r0; r < p.len; r += p.k) acc += I::load(base[r * rx]);
    } else {
      for (int64_t r = r0; r < p.len; r += p.k) acc += I::load(base[reduced_offset(p, r)]);
    }
  }
  sm[t] = acc;
  __syncthreads();
  for (int s = p.k / 2; s > 0; s >>= 1) {
    if (active && r0 < s) sm[t] += sm[t + s * p.lane_block];
    __syncthreads();
  }
  if (active && r0 == 0) y[yo + li * p.ly] = O::store(sm[t]);
}

int64_t mag(int64_t v) { return v < 0 ? -v : v; }

// Orders dims by decreasing |stride a| (innermost last) and merges neighbours.
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
    p.outer *= size;
    if (size != 1) p.ks[p.nk] = size, p.kx[p.nk] = x->strides[d] * scale, p.ky[p.nk] = y->strides[od] * scale, ++p.nk;
    ++od;
  }
  if (od != y->rank) return KGB_ERR_INVALID;
  if (complex) p.ks[p.nk] = 2, p.kx[p.nk] = 1, p.ky[p.nk] = 1, ++p.nk, p.outer *= 2;
  order_and_merge(p.nk, p.ks, p.kx, p.ky);
  order_and_merge(p.nr, p.rs, p.rx, nullptr);
  // The innermost kept dim becomes the lane dim when it is the most contiguous.
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

template <typename I, typename O>
int launch(const kgb_tensor* self, kgb_tensor* out, Plan& p, hipStream_t stream) {
  using S = typename I::S;
  using D = typename O::D;
  p.lane_block = static_cast<int>(p.lanes < 32 ? p.lanes : 32);
  const int kmax = kMaxThreads / pow2_at_least(p.lane_block);
  const int64_t work = p.lanes == 1 && p.nr == 1 && p.rx[0] == 1 ? (p.len + 3) / 4 : p.len;
  p.k = pow2_at_least(work) < kmax ? pow2_at_least(work) : kmax;
  p.groups = static_cast<int>((p.lanes + p.lane_block - 1) / p.lane_block);
  int threads = p.k * p.lane_block;
  threads = (threads + 31) / 32 * 32;
  const int64_t blocks = p.outer * p.groups;
  sum_kernel<I, O><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(static_cast<const S*>(self->data),
                                                                          static_cast<D*>(out->data), p);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

int sum(const kgb_tensor* self, const kgb_int_list* dims, int keepdim, const int* dtype, kgb_tensor* out,
        kgb_stream stream) {
  const int32_t in = self->dtype, res = out->dtype;
  const bool integral = in == KGB_I32 || in == KGB_I64 || in == KGB_U8 || in == KGB_BOOL;
  if (dtype ? *dtype != res : res != (integral ? KGB_I64 : in)) return KGB_ERR_INVALID;
  Plan p;
  if (int s = make_plan(self, dims, keepdim, out, in == KGB_C64, p); s != KGB_OK) return s;
  hipStream_t s = static_cast<hipStream_t>(stream);
  const bool empty = p.outer * p.lanes == 0;
#define KGB_SUM_RUN(IN, OUT) return empty ? KGB_OK : launch<IN, OUT>(self, out, p, s)
  if ((in == KGB_F32 && res == KGB_F32) || (in == KGB_C64 && res == KGB_C64)) KGB_SUM_RUN(F32In, F32Out);
  if (in == KGB_F32 && res == KGB_F64) KGB_SUM_RUN(F32In, F64Out);
  if (in == KGB_F64 && res == KGB_F64) KGB_SUM_RUN(F64In, F64Out);
  if (in == KGB_F16 && res == KGB_F16) KGB_SUM_RUN(F16In, F16Out);
  if (in == KGB_F16 && res == KGB_F32) KGB_SUM_RUN(F16In, F32Out);
  if (in == KGB_BF16 && res == KGB_BF16) KGB_SUM_RUN(BF16In, BF16Out);
  if (in == KGB_BF16 && res == KGB_F32) KGB_SUM_RUN(BF16In, F32Out);
  if (in == KGB_I32 && res == KGB_I64) KGB_SUM_RUN(I32In, I64Out);
  if (in == KGB_I32 && res == KGB_I32) KGB_SUM_RUN(I32In, I32Out);
  if (in == KGB_I64 && res == KGB_I64) KGB_SUM_RUN(I64In, I64Out);
  if (in == KGB_U8 && res == KGB_I64) KGB_SUM_RUN(U8In, I64Out);
  if (in == KGB_BOOL && res == KGB_I64) KGB_SUM_RUN(BoolIn, I64Out);
#undef KGB_SUM_RUN
  return KGB_ERR_UNSUPPORTED;
}

}  // namespace

extern "C" int kgb_aten_sum(const kgb_tensor* self, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  return sum(self, nullptr, 0, dtype, out, stream);
}

extern "C" int kgb_aten_sum_dim_IntList(const kgb_tensor* self, kgb_int_list dim, int keepdim, const int* dtype,
                                        kgb_tensor* out, kgb_stream stream) {
  return sum(self, &dim, keepdim, dtype, out, stream);
}
