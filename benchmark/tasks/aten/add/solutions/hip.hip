// aten/add in HIP: out = self + alpha * other with broadcasting.
// The host right-aligns the three views into one index space (stride 0 on
// broadcast dimensions), drops size-1 dimensions and merges dimensions that
// are contiguous in all three tensors; one thread per output element in a
// grid-stride loop. f16/bf16 are uint16_t data converted in the kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

struct Geometry {
  int64_t size[KGB_MAX_RANK], so[KGB_MAX_RANK], sa[KGB_MAX_RANK], sb[KGB_MAX_RANK];
  int rank;
};

// Storage type S, alpha type A and the combination, per dtype.
struct F32 {
  using S = float; using A = float;
  __device__ static S combine(S x, S y, A a) { return x + a * y; }
};
struct F64 {
  using S = double; using A = double;
  __device__ static S combine(S x, S y, A a) { return x + a * y; }
};
struct F16 {
  using S = uint16_t; using A = float;
  __device__ static S combine(S x, S y, A a) { return kgb_float_to_f16(kgb_f16_to_float(x) + a * kgb_f16_to_float(y)); }
};
struct BF16 {
  using S = uint16_t; using A = float;
  __device__ static S combine(S x, S y, A a) { return kgb_float_to_bf16(kgb_bf16_to_float(x) + a * kgb_bf16_to_float(y)); }
};
struct I32 {
  using S = int32_t; using A = int32_t;
  __device__ static S combine(S x, S y, A a) {
    return static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(a) * static_cast<uint32_t>(y));
  }
};
struct I64 {
  using S = int64_t; using A = int64_t;
  __device__ static S combine(S x, S y, A a) {
    return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(a) * static_cast<uint64_t>(y));
  }
};

template <typename K>
__global__ void add_nd(typename K::S* __restrict__ o, const typename K::S* __restrict__ a,
                       const typename K::S* __restrict__ b, Geometry g, int64_t n, typename K::A alpha) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = i, io = 0, ia = 0, ib = 0;
    for (int d = g.rank - 1; d > 0; --d) {
      int64_t q = r / g.size[d], k = r - q * g.size[d];
      r = q;
      io += k * g.so[d];
      ia += k * g.sa[d];
      ib += k * g.sb[d];
    }
    io += r * g.so[0];
    ia += r * g.sa[0];
    ib += r * g.sb[0];
    o[io] = K::combine(a[ia], b[ib], alpha);
  }
}

bool build_geometry(const kgb_tensor* out, const kgb_tensor* self, const kgb_tensor* other, Geometry& g) {
  const int r = out->rank;
  if (self->rank > r || other->rank > r) return false;
  g.rank = 0;
  for (int d = 0; d < r; ++d) {
    int64_t size = out->sizes[d], so = out->strides[d], sa = 0, sb = 0;
    int ds = d - (r - self->rank), dt = d - (r - other->rank);
    if (ds >= 0) {
      if (self->sizes[ds] != size && self->sizes[ds] != 1) return false;
      sa = self->sizes[ds] == 1 ? 0 : self->strides[ds];
    }
    if (dt >= 0) {
      if (other->sizes[dt] != size && other->sizes[dt] != 1) return false;
      sb = other->sizes[dt] == 1 ? 0 : other->strides[dt];
    }
    if (size == 1) continue;
    int p = g.rank - 1;
    if (p >= 0 && g.so[p] == so * size && g.sa[p] == sa * size && g.sb[p] == sb * size) {
      g.size[p] *= size;
      g.so[p] = so;
      g.sa[p] = sa;
      g.sb[p] = sb;
      continue;
    }
    g.size[g.rank] = size;
    g.so[g.rank] = so;
    g.sa[g.rank] = sa;
    g.sb[g.rank] = sb;
    ++g.rank;
  }
  if (g.rank == 0) {
    g.size[0] = 1;
    g.so[0] = g.sa[0] = g.sb[0] = 0;
    g.rank = 1;
  }
  return true;
}

template <typename K>
int launch(const Geometry& g, int64_t n, const kgb_tensor* self, const kgb_tensor* other, kgb_tensor* out,
           typename K::A alpha, hipStream_t stream) {
  const unsigned threads = 256;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks > 65536) blocks = 65536;
  using S = typename K::S;
  hipLaunchKernelGGL(add_nd<K>, dim3(static_cast<unsigned>(blocks)), dim3(threads), 0, stream,
                     static_cast<S*>(out->data), static_cast<const S*>(self->data), static_cast<const S*>(other->data),
                     g, n, alpha);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_add(const kgb_tensor* self, const kgb_tensor* other, kgb_scalar alpha_scalar, kgb_tensor* out,
                            kgb_stream stream) {
  // alpha is an ATen Scalar: an integer (KGB_I64) or a double (KGB_F64).
  const double alpha = alpha_scalar.dtype == KGB_F64 ? alpha_scalar.v.f : static_cast<double>(alpha_scalar.v.i);
  if (self->dtype != out->dtype || other->dtype != out->dtype) return KGB_ERR_INVALID;
  switch (out->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  Geometry g{};
  if (!build_geometry(out, self, other, g)) return KGB_ERR_INVALID;
  const int64_t n = kgb_numel(out);
  if (n == 0) return KGB_OK;
  auto s = static_cast<hipStream_t>(stream);
  switch (out->dtype) {
    case KGB_F32: return launch<F32>(g, n, self, other, out, static_cast<float>(alpha), s);
    case KGB_F64: return launch<F64>(g, n, self, other, out, alpha, s);
    case KGB_F16: return launch<F16>(g, n, self, other, out, static_cast<float>(alpha), s);
    case KGB_BF16: return launch<BF16>(g, n, self, other, out, static_cast<float>(alpha), s);
    case KGB_I32: return launch<I32>(g, n, self, other, out, static_cast<int32_t>(alpha), s);
    default: return launch<I64>(g, n, self, other, out, static_cast<int64_t>(alpha), s);
  }
}
