// aten/_softmax in HIP: out = exp(x - max) / sum(exp(x - max)) per slice; out
// in self's dtype, or f32 from f16 with half_to_float (KI reads, KO writes).
// Slices contiguous along dim (or few slices): one block of 256 threads per
// slice with shared-memory reductions; otherwise one thread per slice, three
// passes (neighbouring threads read neighbouring addresses). IEEE special
// values follow from the formula (fmax skips NaN, exp keeps it).
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

template <typename KI, typename KO>
__global__ void __launch_bounds__(kThreads) softmax_blocks(typename KO::S* __restrict__ out,
                                                           const typename KI::S* __restrict__ in, Slices g, int64_t len,
                                                           int64_t in_step, int64_t out_step) {
  using C = typename KI::C;
  __shared__ C partial[kThreads];
  for (int64_t s = blockIdx.x; s < g.count; s += gridDim.x) {
    int64_t a, b;
    slice_base(g, s, a, b);
    C m = -INFINITY;
    for (int64_t k = threadIdx.x; k < len; k += kThreads) m = fmax(m, KI::load(in[a + k * in_step]));
    partial[threadIdx.x] = m;
    __syncthreads();
    for (int r = kThreads / 2; r > 0; r >>= 1) {
      if (static_cast<int>(threadIdx.x) < r) partial[threadIdx.x] = fmax(partial[threadIdx.x], partial[threadIdx.x + r]);
      __syncthreads();
    }
    m = partial[0];
    __syncthreads();
    C sum = 0;
    for (int64_t k = threadIdx.x; k < len; k += kThreads) sum += exp(KI::load(in[a + k * in_step]) - m);
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int r = kThreads / 2; r > 0; r >>= 1) {
      if (static_cast<int>(threadIdx.x) < r) partial[threadIdx.x] += partial[threadIdx.x + r];
      __syncthreads();
    }
    sum = partial[0];
    __syncthreads();
    for (int64_t k = threadIdx.x; k < len; k += kThreads)
      out[b + k * out_step] = KO::store(exp(KI::load(in[a + k * in_step]) - m) / sum);
  }
}

template <typename KI, typename KO>
__global__ void softmax_threads(typename KO::S* __restrict__ out, const typename KI::S* __restrict__ in, Slices g,
                                int64_t len, int64_t in_step, int64_t out_step) {
  using C = typename KI::C;
  for (int64_t s = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; s < g.count;
       s += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t a, b;
    slice_base(g, s, a, b);
    C m = -INFINITY;
    for (int64_t k = 0; k < len; ++k) m = fmax(m, KI::load(in[a + k * in_step]));
    C sum = 0;
    for (int64_t k = 0; k < len; ++k) sum += exp(KI::load(in[a + k * in_step]) - m);
    for (int64_t k = 0; k < len; ++k) out[b + k * out_step] = KO::store(exp(KI::load(in[a + k * in_step]) - m) / sum);
  }
}

template <typename KI, typename KO = KI>
int launch(const kgb_tensor* self, kgb_tensor* out, const Slices& g, int64_t len, int64_t in_step, int64_t out_step,
           hipStream_t stream) {
  const auto* in = static_cast<const typename KI::S*>(self->data);
  auto* o = static_cast<typename KO::S*>(out->data);
  if (in_step == 1 || g.count < 1024) {
    const unsigned blocks = static_cast<unsigned>(g.count < 65536 ? g.count : 65536);
    hipLaunchKernelGGL((softmax_blocks<KI, KO>), dim3(blocks), dim3(kThreads), 0, stream, o, in, g, len, in_step, out_step);
  } else {
    int64_t blocks = (g.count + kThreads - 1) / kThreads;
    if (blocks > 65536) blocks = 65536;
    hipLaunchKernelGGL((softmax_threads<KI, KO>), dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, o, in, g,
                       len, in_step, out_step);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten__softmax(const kgb_tensor* self, int64_t dim, int half_to_float, kgb_tensor* out,
                                 kgb_stream stream) {
  if (half_to_float ? (self->dtype != KGB_F16 || out->dtype != KGB_F32) : self->dtype != out->dtype)
    return KGB_ERR_UNSUPPORTED;
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  const int rank = self->rank;
  if (out->rank != rank) return KGB_ERR_INVALID;
  const int64_t nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  Slices g{};
  g.count = 1;
  for (int d = 0; d < rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
    if (d != dim) add_slice_dim(g, self->sizes[d], self->strides[d], out->strides[d]);
  }
  const int64_t len = rank == 0 ? 1 : self->sizes[dim];
  const int64_t in_step = rank == 0 ? 0 : self->strides[dim], out_step = rank == 0 ? 0 : out->strides[dim];
  if (g.count == 0 || len == 0) return KGB_OK;
  auto s = static_cast<hipStream_t>(stream);
  if (half_to_float) return launch<F16, F32>(self, out, g, len, in_step, out_step, s);
  switch (self->dtype) {
    case KGB_F32: return launch<F32>(self, out, g, len, in_step, out_step, s);
    case KGB_F64: return launch<F64>(self, out, g, len, in_step, out_step, s);
    case KGB_F16: return launch<F16>(self, out, g, len, in_step, out_step, s);
    default: return launch<BF16>(self, out, g, len, in_step, out_step, s);
  }
}
