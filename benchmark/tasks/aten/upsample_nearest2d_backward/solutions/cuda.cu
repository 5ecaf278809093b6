// aten/upsample_nearest2d_backward on CUDA: every grad_input pixel sums the
// grad_output pixels whose legacy nearest source it is.
//
// A gather, one thread per grad_input element (grid-stride, 64-bit indices):
// no atomics, each sum in a fixed order, so the result is the same bits on
// every run. The source rule src(o) = min(floor(o * s), in - 1) (float32, as
// ATen) is non-decreasing in o, so input position i owns the output run
// [start(i), start(i + 1)); a thread finds its run bounds from an estimate
// i / s and steps them with the forward rule itself until exact (at most a
// step or two), so it selects exactly the pixels the forward rule does.
// Neighbouring threads take neighbouring iw, so their runs are neighbouring
// output columns: the loads of a warp are coalesced.
//  - 2x width with unit-stride, pair-aligned grad_output rows (the common
//    F.interpolate(scale_factor=2) case): each thread loads its two columns
//    as one vector (float2, double2, or a 32-bit word of two 16-bit values).
//  - Otherwise a general strided loop (channels-last, stepped, any ratio).
// f16/bf16 accumulate in float and round once; f32 in float; f64 in double.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Geometry {
  long long N, C, H, W, OH, OW;
  long long gs[4], os[4];  // grad_output and grad_input strides
  float sh, sw;            // forward scales (float32, as ATen computes them)
  long long numel;         // N * C * H * W
};

__device__ __forceinline__ long long source_of(long long o, long long in, float s) {
  const long long v = static_cast<long long>(floorf(static_cast<float>(o) * s));
  return v < in - 1 ? v : in - 1;
}

// First output position whose source is >= i (out when none).
__device__ __forceinline__ long long run_start(long long i, long long in, long long out, float s) {
  if (i <= 0) return 0;
  if (i >= in) return out;
  long long o = static_cast<long long>(ceil(static_cast<double>(i) / static_cast<double>(s)));
  o = o < 0 ? 0 : (o > out ? out : o);
  while (o > 0 && source_of(o - 1, in, s) >= i) --o;
  while (o < out && source_of(o, in, s) < i) ++o;
  return o;
}

template <typename S> struct Elem;
template <> struct Elem<float> {
  using Acc = float;
  __device__ static float load(const float* p) { return __ldg(p); }
  __device__ static float store(float v) { return v; }
  __device__ static float pair_sum(const float* p) {
    const float2 v = __ldg(reinterpret_cast<const float2*>(p));
    return v.x + v.y;
  }
};
template <> struct Elem<double> {
  using Acc = double;
  __device__ static double load(const double* p) { return __ldg(p); }
  __device__ static double store(double v) { return v; }
  __device__ static double pair_sum(const double* p) {
    const double2 v = __ldg(reinterpret_cast<const double2*>(p));
    return v.x + v.y;
  }
};
struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };
template <> struct Elem<F16> {
  using Acc = float;
  __device__ static float load(const F16* p) { return kgb_f16_to_float(__ldg(&p->bits)); }
  __device__ static F16 store(float v) { return F16{kgb_float_to_f16(v)}; }
  __device__ static float pair_sum(const F16* p) {
    const unsigned w = __ldg(reinterpret_cast<const unsigned*>(p));
    return kgb_f16_to_float(static_cast<uint16_t>(w & 0xffffu)) + kgb_f16_to_float(static_cast<uint16_t>(w >> 16));
  }
};
template <> struct Elem<BF16> {
  using Acc = float;
  __device__ static float load(const BF16* p) { return kgb_bf16_to_float(__ldg(&p->bits)); }
  __device__ static BF16 store(float v) { return BF16{kgb_float_to_bf16(v)}; }
  __device__ static float pair_sum(const BF16* p) {
    const unsigned w = __ldg(reinterpret_cast<const unsigned*>(p));
    return kgb_bf16_to_float(static_cast<uint16_t>(w & 0xffffu)) + kgb_bf16_to_float(static_cast<uint16_t>(w >> 16));
  }
};

// Pair: the width runs are exactly [2 iw, 2 iw + 2) and every row of
// grad_output starts pair-aligned with unit stride.
template <typename S, bool Pair>
__global__ void __launch_bounds__(kThreads) gather(const S* __restrict__ grad, S* __restrict__ out, Geometry g) {
  using E = Elem<S>;
  for (long long e = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; e < g.numel;
       e += static_cast<long long>(gridDim.x) * kThreads) {
    const long long iw = e % g.W;
    long long rest = e / g.W;
    const long long ih = rest % g.H;
    rest /= g.H;
    const long long c = rest % g.C, n = rest / g.C;
    const long long h0 = run_start(ih, g.H, g.OH, g.sh), h1 = run_start(ih + 1, g.H, g.OH, g.sh);
    const S* plane = grad + n * g.gs[0] + c * g.gs[1];
    typename E::Acc sum = 0;
    if (Pair) {
      for (long long oh = h0; oh < h1; ++oh) sum += E::pair_sum(plane + oh * g.gs[2] + 2 * iw);
    } else {
      const long long w0 = run_start(iw, g.W, g.OW, g.sw), w1 = run_start(iw + 1, g.W, g.OW, g.sw);
      for (long long oh = h0; oh < h1; ++oh) {
        const S* row = plane + oh * g.gs[2];
        for (long long ow = w0; ow < w1; ++ow) sum += E::load(row + ow * g.gs[3]);
      }
    }
    out[n * g.os[0] + c * g.os[1] + ih * g.os[2] + iw * g.os[3]] = E::store(sum);
  }
}

// Host copy of the forward rule, to decide whether the pair path applies.
long long host_source(long long o, long long in, float s) {
  const long long v = static_cast<long long>(floorf(static_cast<float>(o) * s));
  return v < in - 1 ? v : in - 1;
}

float forward_scale(long long in, long long out, const double* scale) {
  return (scale && *scale > 0) ? static_cast<float>(1.0 / *scale) : static_cast<float>(in) / static_cast<float>(out);
}

template <typename S>
int launch(const kgb_tensor* grad, kgb_tensor* out, const Geometry& g, cudaStream_t stream) {
  bool pair = g.OW == 2 * g.W && g.gs[3] == 1;
  for (long long ow = 0; ow < g.OW && pair; ++ow) pair = host_source(ow, g.W, g.sw) == ow / 2;
  const long long align = 2 * static_cast<long long>(sizeof(S));
  pair = pair && reinterpret_cast<uintptr_t>(grad->data) % align == 0 && g.gs[0] % 2 == 0 && g.gs[1] % 2 == 0 &&
         g.gs[2] % 2 == 0;
  long long blocks = (g.numel + kThreads - 1) / kThreads;
  if (blocks > 65535LL * 16) blocks = 65535LL * 16;
  const S* src = static_cast<const S*>(grad->data);
  S* dst = static_cast<S*>(out->data);
  if (pair) gather<S, true><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(src, dst, g);
  else gather<S, false><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(src, dst, g);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_upsample_nearest2d_backward(const kgb_tensor* grad_output, kgb_int_list output_size,
                                                    kgb_int_list input_size, const double* scales_h,
                                                    const double* scales_w, kgb_tensor* grad_input, kgb_stream stream) {
  if (output_size.count != 2 || input_size.count != 4) return KGB_ERR_INVALID;
  if (grad_output->rank != 4 || grad_input->rank != 4 || grad_output->dtype != grad_input->dtype) return KGB_ERR_INVALID;
  Geometry g{};
  g.N = input_size.values[0];
  g.C = input_size.values[1];
  g.H = input_size.values[2];
  g.W = input_size.values[3];
  g.OH = output_size.values[0];
  g.OW = output_size.values[1];
  if (g.N < 0 || g.C < 0 || g.H <= 0 || g.W <= 0 || g.OH <= 0 || g.OW <= 0) return KGB_ERR_INVALID;
  const long long want_out[4] = {g.N, g.C, g.OH, g.OW};
  for (int d = 0; d < 4; ++d) {
    if (grad_input->sizes[d] != input_size.values[d] || grad_output->sizes[d] != want_out[d]) return KGB_ERR_INVALID;
    g.gs[d] = grad_output->strides[d];
    g.os[d] = grad_input->strides[d];
  }
  const int32_t dt = grad_input->dtype;
  if (dt != KGB_F32 && dt != KGB_F64 && dt != KGB_F16 && dt != KGB_BF16) return KGB_ERR_UNSUPPORTED;
  g.numel = g.N * g.C * g.H * g.W;
  if (g.numel == 0) return KGB_OK;
  g.sh = forward_scale(g.H, g.OH, scales_h);
  g.sw = forward_scale(g.W, g.OW, scales_w);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (dt) {
    case KGB_F32: return launch<float>(grad_output, grad_input, g, s);
    case KGB_F64: return launch<double>(grad_output, grad_input, g, s);
    case KGB_F16: return launch<F16>(grad_output, grad_input, g, s);
    default: return launch<BF16>(grad_output, grad_input, g, s);
  }
}
