// aten/affine_grid_generator in HIP, a port of the CUDA solution. One
// thread per grid point (n, [d,] h, w) in a grid-stride loop writes the
// point's K = 2 or 3 coordinates theta[n,k,0]*x(w) + theta[n,k,1]*x(h)
// [+ theta[n,k,2]*x(d)] + theta[n,k,K]. Base coordinates are computed on the
// fly from the index (0 for S = 1), rounded to T as ATen's base grid is, in
// float (double for f64). theta is a few values per batch and stays in
// cache. On dense outputs a 2-D point's (x, y) pair is one vector store
// (8 bytes for f32); other layouts store through out's strides. Output
// writes dominate: the kernel is bandwidth bound. 64-bit indices.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Geometry {
  long long batch, depth, height, width, points;
  long long ts0, ts1, ts2;          // theta strides
  long long on, od, oh, ow, ok;     // out strides (od = 0 for 2-D)
  int align, dense;
};

template <typename S> struct Io;
template <> struct Io<float> {
  using C = float;
  static __device__ float load(float v) { return v; }
  static __device__ float store(float v) { return v; }
  static __device__ float round(float v) { return v; }
};
template <> struct Io<double> {
  using C = double;
  static __device__ double load(double v) { return v; }
  static __device__ double store(double v) { return v; }
  static __device__ double round(double v) { return v; }
};
struct Half { uint16_t bits; };
struct BFloat { uint16_t bits; };
template <> struct Io<Half> {
  using C = float;
  static __device__ float load(Half v) { return kgb_f16_to_float(v.bits); }
  static __device__ Half store(float v) { return Half{kgb_float_to_f16(v)}; }
  static __device__ float round(float v) { return kgb_f16_to_float(kgb_float_to_f16(v)); }
};
template <> struct Io<BFloat> {
  using C = float;
  static __device__ float load(BFloat v) { return kgb_bf16_to_float(v.bits); }
  static __device__ BFloat store(float v) { return BFloat{kgb_float_to_bf16(v)}; }
  static __device__ float round(float v) { return kgb_bf16_to_float(kgb_float_to_bf16(v)); }
};

// x(i, S) rounded to T: linspace(-1, 1, S), scaled by (S-1)/S without align_corners; 0 for S = 1.
template <typename S>
__device__ typename Io<S>::C coordinate(long long i, long long size, int align) {
  using C = typename Io<S>::C;
  if (size <= 1) return C(0);
  const C ci = static_cast<C>(i);
  const C v = align ? C(-1) + C(2) * ci / static_cast<C>(size - 1) : (C(2) * ci + C(1)) / static_cast<C>(size) - C(1);
  return Io<S>::round(v);
}

template <typename S>
struct alignas(2 * sizeof(S)) Pair {
  S x, y;
};

template <typename S, int K>
__global__ void __launch_bounds__(kThreads) affine_grid(const S* __restrict__ theta, S* __restrict__ out,
                                                        const Geometry g) {
  using C = typename Io<S>::C;
  for (long long p = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; p < g.points;
       p += static_cast<long long>(gridDim.x) * kThreads) {
    const long long w = p % g.width, rest = p / g.width;
    const long long h = rest % g.height, rest2 = rest / g.height;
    const long long d = rest2 % g.depth, n = rest2 / g.depth;
    const C x = coordinate<S>(w, g.width, g.align), y = coordinate<S>(h, g.height, g.align);
    const C z = K == 3 ? coordinate<S>(d, g.depth, g.align) : C(0);
    C v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const S* row = theta + n * g.ts0 + k * g.ts1;
      C s = Io<S>::load(row[K * g.ts2]);
      s += Io<S>::load(row[0]) * x + Io<S>::load(row[g.ts2]) * y;
      if (K == 3) s += Io<S>::load(row[2 * g.ts2]) * z;
      v[k] = s;
    }
    S* dst = out + n * g.on + d * g.od + h * g.oh + w * g.ow;
    if (K == 2 && g.dense) {
      *reinterpret_cast<Pair<S>*>(dst) = Pair<S>{Io<S>::store(v[0]), Io<S>::store(v[1])};
    } else {
#pragma unroll
      for (int k = 0; k < K; ++k) dst[k * g.ok] = Io<S>::store(v[k]);
    }
  }
}

template <typename S>
int launch(const kgb_tensor* theta, kgb_tensor* out, int spatial, Geometry g, hipStream_t s) {
  // Pair stores need dense (x, y) pairs whose starts keep the pair's alignment.
  g.dense = spatial == 2 && g.ok == 1 && g.ow == 2 && g.oh % 2 == 0 && g.on % 2 == 0 &&
            reinterpret_cast<uintptr_t>(out->data) % (2 * sizeof(S)) == 0;
  const long long blocks = (g.points + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 132 * 32 ? blocks : 132 * 32);
  const S* th = static_cast<const S*>(theta->data);
  S* o = static_cast<S*>(out->data);
  if (spatial == 2) affine_grid<S, 2><<<grid, kThreads, 0, s>>>(th, o, g);
  else affine_grid<S, 3><<<grid, kThreads, 0, s>>>(th, o, g);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_affine_grid_generator(const kgb_tensor* theta, kgb_int_list size, int align_corners,
                                              kgb_tensor* out, kgb_stream stream) {
  switch (theta->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (size.count != 4 && size.count != 5) return KGB_ERR_INVALID;
  const int spatial = static_cast<int>(size.count) - 2;
  for (int64_t i = 0; i < size.count; ++i)
    if (size.values[i] < 0) return KGB_ERR_INVALID;
  Geometry g{};
  g.batch = size.values[0], g.depth = spatial == 3 ? size.values[2] : 1;
  g.height = size.values[size.count - 2], g.width = size.values[size.count - 1];
  if (theta->rank != 3 || theta->sizes[0] != g.batch || theta->sizes[1] != spatial || theta->sizes[2] != spatial + 1)
    return KGB_ERR_INVALID;
  if (out->dtype != theta->dtype || out->rank != spatial + 2 || out->sizes[0] != g.batch || out->sizes[spatial + 1] != spatial)
    return KGB_ERR_INVALID;
  for (int d = 1; d <= spatial; ++d)
    if (out->sizes[d] != size.values[d + 1]) return KGB_ERR_INVALID;
  g.points = g.batch * g.depth * g.height * g.width;
  if (g.points == 0) return KGB_OK;
  g.ts0 = theta->strides[0], g.ts1 = theta->strides[1], g.ts2 = theta->strides[2];
  const int r = out->rank;
  g.on = out->strides[0], g.od = spatial == 3 ? out->strides[1] : 0, g.oh = out->strides[r - 3];
  g.ow = out->strides[r - 2], g.ok = out->strides[r - 1];
  g.align = align_corners != 0;
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (theta->dtype) {
    case KGB_F32: return launch<float>(theta, out, spatial, g, s);
    case KGB_F64: return launch<double>(theta, out, spatial, g, s);
    case KGB_F16: return launch<Half>(theta, out, spatial, g, s);
    default: return launch<BFloat>(theta, out, spatial, g, s);
  }
}
