// aten/sum over one dimension in HIP.
// Slices contiguous along dim (or few slices): one block of 256 threads per
// output element with a shared-memory tree; otherwise one thread per output
// element (neighbouring threads read neighbouring addresses). Accumulation:
// double for f64, float for f32/f16/bf16, int64 for integers.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

// Storage type S, compute type C and the conversions, per dtype.
struct F32 {
  using S = float; using C = float;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F64 {
  using S = double; using C = double;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
struct F16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return kgb_f16_to_float(v); }
  __device__ static S store(C v) { return kgb_float_to_f16(v); }
};
struct BF16 {
  using S = uint16_t; using C = float;
  __device__ static C load(S v) { return kgb_bf16_to_float(v); }
  __device__ static S store(C v) { return kgb_float_to_bf16(v); }
};
struct I32 {
  using S = int32_t; using C = int64_t;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return static_cast<int32_t>(v); }
};
struct I64 {
  using S = int64_t; using C = int64_t;
  __device__ static C load(S v) { return v; }
  __device__ static S store(C v) { return v; }
};
// The dimensions other than dim, row-major, merged where self and out allow
// it: sizes and strides in self (a) and out (b).
struct Slices {
  int64_t size[KGB_MAX_RANK], sa[KGB_MAX_RANK], sb[KGB_MAX_RANK];
  int rank;
  int64_t count;
};

void add_slice_dim(Slices& g, int64_t size, int64_t sa, int64_t sb) {
  g.count *= size;
  if (size == 1) return;
  int p = g.rank - 1;
  if (p >= 0 && g.sa[p] == sa * size && g.sb[p] == sb * size) {
    g.size[p] *= size;
    g.sa[p] = sa;
    g.sb[p] = sb;
    return;
  }
  g.size[g.rank] = size;
  g.sa[g.rank] = sa;
  g.sb[g.rank] = sb;
  ++g.rank;
}

__device__ inline void slice_base(const Slices& g, int64_t s, int64_t& a, int64_t& b) {
  a = 0;
  b = 0;
  for (int k = g.rank - 1; k >= 0; --k) {
    int64_t q = s / g.size[k], i = s - q * g.size[k];
    s = q;
    a += i * g.sa[k];
    b += i * g.sb[k];
  }
}

constexpr int kThreads = 256;

template <typename K>
__global__ void __launch_bounds__(kThreads) sum_blocks(typename K::S* __restrict__ out,
                                                       const typename K::S* __restrict__ in, Slices g, int64_t len,
                                                       int64_t step) {
  using C = typename K::C;
  __shared__ C partial[kThreads];
  for (int64_t s = blockIdx.x; s < g.count; s += gridDim.x) {
    int64_t a, b;
    slice_base(g, s, a, b);
    C acc = 0;
    for (int64_t k = threadIdx.x; k < len; k += kThreads) acc += K::load(in[a + k * step]);
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int r = kThreads / 2; r > 0; r >>= 1) {
      if (static_cast<int>(threadIdx.x) < r) partial[threadIdx.x] += partial[threadIdx.x + r];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[b] = K::store(partial[0]);
    __syncthreads();
  }
}

template <typename K>
__global__ void sum_threads(typename K::S* __restrict__ out, const typename K::S* __restrict__ in, Slices g, int64_t len,
                            int64_t step) {
  using C = typename K::C;
  for (int64_t s = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; s < g.count;
       s += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t a, b;
    slice_base(g, s, a, b);
    C acc = 0;
    for (int64_t k = 0; k < len; ++k) acc += K::load(in[a + k * step]);
    out[b] = K::store(acc);
  }
}

template <typename K>
int launch(const kgb_tensor* self, kgb_tensor* out, const Slices& g, int64_t len, int64_t step, hipStream_t stream) {
  using S = typename K::S;
  const S* in = static_cast<const S*>(self->data);
  S* o = static_cast<S*>(out->data);
  if (len > 0 && (step == 1 || g.count < 1024)) {
    const unsigned blocks = static_cast<unsigned>(g.count < 65536 ? g.count : 65536);
    hipLaunchKernelGGL(sum_blocks<K>, dim3(blocks), dim3(kThreads), 0, stream, o, in, g, len, step);
  } else {
    int64_t blocks = (g.count + kThreads - 1) / kThreads;
    if (blocks > 65536) blocks = 65536;
    hipLaunchKernelGGL(sum_threads<K>, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, o, in, g, len,
                       step);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_sum(const kgb_tensor* self, int64_t dim, int keepdim, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  const int rank = self->rank;
  const int64_t nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  if (out->rank != (rank == 0 ? 0 : (keepdim ? rank : rank - 1))) return KGB_ERR_INVALID;
  Slices g{};
  g.count = 1;
  for (int d = 0; d < rank; ++d) {
    if (d == dim) continue;
    const int od = keepdim ? d : (d < dim ? d : d - 1);
    if (out->sizes[od] != self->sizes[d]) return KGB_ERR_INVALID;
    add_slice_dim(g, self->sizes[d], self->strides[d], out->strides[od]);
  }
  const int64_t len = rank == 0 ? 1 : self->sizes[dim];
  const int64_t step = rank == 0 ? 0 : self->strides[dim];
  if (g.count == 0) return KGB_OK;
  auto s = static_cast<hipStream_t>(stream);
  switch (self->dtype) {
    case KGB_F32: return launch<F32>(self, out, g, len, step, s);
    case KGB_F64: return launch<F64>(self, out, g, len, step, s);
    case KGB_F16: return launch<F16>(self, out, g, len, step, s);
    case KGB_BF16: return launch<BF16>(self, out, g, len, step, s);
    case KGB_I32: return launch<I32>(self, out, g, len, step, s);
    default: return launch<I64>(self, out, g, len, step, s);
  }
}
