// aten/reflection_pad1d_backward on HIP: grad_input[..., i] sums the
// grad_output elements of its row that reflect onto i: its own position
// x = i + pad_left, the left mirror pad_left - i (1 <= i <= pad_left) and the
// right mirror 2 (W - 1) - i + pad_left (W - 1 - pad_right <= i <= W - 2).
//
// A gather: every grad_input element is computed by one thread from its (at
// most three) terms in a fixed order, so no atomics and the same bits on every
// run (ATen's own kernel scatters with atomicAdd). Elements in the interior
// [a, b) of a row have only their own term, whose bits pass unchanged.
// The grid is (chunks of a row) x (rows), grid-stride in both directions.
//  - Vector path: unit last strides, pad_left and both row pitches multiples
//    of V = 16 / sizeof(element), 16-byte aligned bases: a thread moves one
//    16-byte vector of the interior (load and store), element by element only
//    for chunks that touch the row's ends.
//  - Otherwise each thread handles kPer elements spaced a block apart
//    (coalesced, several loads in flight).
// f16/bf16 add in float and round once; f32 in float; f64 in double.
// A port of the CUDA solution for gfx90a, with plain loads where CUDA uses
// __ldg (on gfx90a __ldg is an ordinary load).
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr int kPer = 4;

struct Geometry {
  long long W, pl, pr, OW;
  long long a, b;              // interior: own term only
  long long rows, C;           // rows = N * C
  long long gn, gc, gs;        // grad_output strides: batch, channel, last
  long long on, oc, os;        // grad_input strides
};

template <typename S> struct Elem;
template <> struct Elem<float> {
  using Acc = float;
  __device__ static float load(const float* p) { return *p; }
  __device__ static float store(float v) { return v; }
};
template <> struct Elem<double> {
  using Acc = double;
  __device__ static double load(const double* p) { return *p; }
  __device__ static double store(double v) { return v; }
};
struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };
template <> struct Elem<F16> {
  using Acc = float;
  __device__ static float load(const F16* p) { return kgb_f16_to_float(p->bits); }
  __device__ static F16 store(float v) { return F16{kgb_float_to_f16(v)}; }
};
template <> struct Elem<BF16> {
  using Acc = float;
  __device__ static float load(const BF16* p) { return kgb_bf16_to_float(p->bits); }
  __device__ static BF16 store(float v) { return BF16{kgb_float_to_bf16(v)}; }
};

template <typename S>
__device__ __forceinline__ S element(const S* g, long long i, const Geometry& q) {
  using E = Elem<S>;
  typename E::Acc s = 0;
  const long long x = i + q.pl;
  if (x >= 0 && x < q.OW) s += E::load(g + x * q.gs);
  if (i >= 1 && i <= q.pl) s += E::load(g + (q.pl - i) * q.gs);
  if (i <= q.W - 2 && i >= q.W - 1 - q.pr) s += E::load(g + (2 * (q.W - 1) - i + q.pl) * q.gs);
  return E::store(s);
}

template <typename S>
__global__ void __launch_bounds__(kThreads) gather(const S* __restrict__ grad, S* __restrict__ out, Geometry q) {
  const long long span = static_cast<long long>(kThreads) * kPer;
  for (long long row = blockIdx.y; row < q.rows; row += gridDim.y) {
    const long long n = row / q.C, c = row % q.C;
    const S* g = grad + n * q.gn + c * q.gc;
    S* o = out + n * q.on + c * q.oc;
    for (long long base = static_cast<long long>(blockIdx.x) * span; base < q.W; base += static_cast<long long>(gridDim.x) * span) {
#pragma unroll
      for (int k = 0; k < kPer; ++k) {
        const long long i = base + k * kThreads + threadIdx.x;
        if (i < q.W) o[i * q.os] = element(g, i, q);
      }
    }
  }
}

// V elements per 16-byte vector; the interior chunks move as uint4.
template <typename S>
__global__ void __launch_bounds__(kThreads) gather_vec(const S* __restrict__ grad, S* __restrict__ out, Geometry q) {
  constexpr int V = 16 / sizeof(S);
  const long long chunks = (q.W + V - 1) / V;
  for (long long row = blockIdx.y; row < q.rows; row += gridDim.y) {
    const long long n = row / q.C, c = row % q.C;
    const S* g = grad + n * q.gn + c * q.gc;
    S* o = out + n * q.on + c * q.oc;
    for (long long j = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; j < chunks;
         j += static_cast<long long>(gridDim.x) * kThreads) {
      const long long i0 = j * V;
      if (i0 >= q.a && i0 + V <= q.b) {
        *reinterpret_cast<uint4*>(o + i0) = *(reinterpret_cast<const uint4*>(g + i0 + q.pl));
      } else {
        for (int k = 0; k < V && i0 + k < q.W; ++k) o[i0 + k] = element(g, i0 + k, q);
      }
    }
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

template <typename S>
int launch(const kgb_tensor* grad, kgb_tensor* out, const Geometry& q, hipStream_t stream) {
  const long long V = 16 / static_cast<long long>(sizeof(S));
  const bool vec = q.gs == 1 && q.os == 1 && q.pl % V == 0 && q.gn % V == 0 && q.gc % V == 0 && q.on % V == 0 &&
                   q.oc % V == 0 && aligned16(grad->data) && aligned16(out->data);
  const long long per_block = vec ? kThreads * V : static_cast<long long>(kThreads) * kPer;
  long long bx = (q.W + per_block - 1) / per_block;
  if (bx > 65535) bx = 65535;
  long long by = q.rows < 65535 ? q.rows : 65535;
  const dim3 grid(static_cast<unsigned>(bx), static_cast<unsigned>(by));
  const S* g = static_cast<const S*>(grad->data);
  S* o = static_cast<S*>(out->data);
  if (vec) gather_vec<S><<<grid, kThreads, 0, stream>>>(g, o, q);
  else gather<S><<<grid, kThreads, 0, stream>>>(g, o, q);
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_reflection_pad1d_backward(const kgb_tensor* grad_output, const kgb_tensor* self,
                                                  kgb_int_list padding, kgb_tensor* grad_input, kgb_stream stream) {
  if (padding.count != 2) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if ((rank != 2 && rank != 3) || grad_output->rank != rank || grad_input->rank != rank) return KGB_ERR_INVALID;
  if (grad_output->dtype != self->dtype || grad_input->dtype != self->dtype) return KGB_ERR_INVALID;
  Geometry q{};
  q.W = self->sizes[rank - 1];
  q.pl = padding.values[0];
  q.pr = padding.values[1];
  q.OW = q.W + q.pl + q.pr;
  if (q.pl >= q.W || q.pr >= q.W) return KGB_ERR_INVALID;
  for (int d = 0; d < rank; ++d) {
    if (grad_input->sizes[d] != self->sizes[d]) return KGB_ERR_INVALID;
    if (grad_output->sizes[d] != (d == rank - 1 ? q.OW : self->sizes[d])) return KGB_ERR_INVALID;
  }
  const int32_t dt = self->dtype;
  if (dt != KGB_F32 && dt != KGB_F64 && dt != KGB_F16 && dt != KGB_BF16) return KGB_ERR_UNSUPPORTED;
  const long long N = rank == 3 ? self->sizes[0] : 1;
  q.C = self->sizes[rank - 2];
  q.rows = N * q.C;
  if (q.rows == 0 || q.W == 0) return KGB_OK;
  if (q.pl <= -q.W || q.pr <= -q.W) return KGB_ERR_INVALID;  // outside what the task defines
  const bool batched = rank == 3;
  q.gn = batched ? grad_output->strides[0] : 0;
  q.gc = grad_output->strides[rank - 2];
  q.gs = grad_output->strides[rank - 1];
  q.on = batched ? grad_input->strides[0] : 0;
  q.oc = grad_input->strides[rank - 2];
  q.os = grad_input->strides[rank - 1];
  // Own term only: inside the crop, past the left mirrors, before the right ones.
  q.a = q.pl + 1 > 0 ? q.pl + 1 : 0;
  if (-q.pl > q.a) q.a = -q.pl;
  q.b = q.W + (q.pr < 0 ? q.pr : 0);
  if (q.pr >= 1 && q.W - 1 - q.pr < q.b) q.b = q.W - 1 - q.pr;
  if (q.b < q.a) q.b = q.a;
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (dt) {
    case KGB_F32: return launch<float>(grad_output, grad_input, q, s);
    case KGB_F64: return launch<double>(grad_output, grad_input, q, s);
    case KGB_F16: return launch<F16>(grad_output, grad_input, q, s);
    default: return launch<BF16>(grad_output, grad_input, q, s);
  }
}
