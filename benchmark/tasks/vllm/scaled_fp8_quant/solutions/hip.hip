// vllm/scaled_fp8_quant in HIP, a port of the CUDA solution: static,
// dynamic and dynamic per-token quantisation to fp8 e4m3fn with saturation,
// vLLM's arithmetic. The block reductions use a shared-memory tree instead of
// 32-lane warp shuffles; everything else is as in the CUDA version:
//
// Static: one grid-stride kernel over (row, 4-element group); the reciprocal
// of the scale is computed once per thread in float, as vLLM does. Rows with
// unit inner stride and 8-byte aligned f16/bf16 (16-byte aligned f32) data
// load four elements at once and store them as one 32-bit word when the
// result row is unit-stride and aligned too; anything else takes the strided
// element path. Conversion: kgb_half.h's saturating round-to-nearest-even.
// Dynamic: the scale output itself accumulates max |x|: it is zeroed, every
// block reduces its part and folds it in with one atomicMax on the float's
// bits (non-negative floats order as their bits), one thread turns it into
// absmax / 448, and the static kernel then reads it as its scale.
// Per token: one block per row reduces the row's absmax in shared memory,
// derives the scale (scale_ub, floor 1 / (448 * 512)), stores it and
// quantises the row (re-read from L2) dividing by the scale.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr float kFp8Max = 448.0f;

struct Tensor2 {
  const void* data;
  int64_t s0, s1;
};

template <typename T> __device__ __forceinline__ float load(const T* p);
template <> __device__ __forceinline__ float load<float>(const float* p) { return *p; }
struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };
template <> __device__ __forceinline__ float load<F16>(const F16* p) { return kgb_f16_to_float(p->bits); }
template <> __device__ __forceinline__ float load<BF16>(const BF16* p) { return kgb_bf16_to_float(p->bits); }

// Four consecutive elements of a unit-stride row, in one vector load.
template <typename T> __device__ __forceinline__ float4 load4(const T* p);
template <> __device__ __forceinline__ float4 load4<float>(const float* p) { return *reinterpret_cast<const float4*>(p); }
template <> __device__ __forceinline__ float4 load4<F16>(const F16* p) {
  const uint2 w = *reinterpret_cast<const uint2*>(p);
  return make_float4(kgb_f16_to_float(w.x & 0xFFFFu), kgb_f16_to_float(w.x >> 16), kgb_f16_to_float(w.y & 0xFFFFu),
                     kgb_f16_to_float(w.y >> 16));
}
template <> __device__ __forceinline__ float4 load4<BF16>(const BF16* p) {
  const uint2 w = *reinterpret_cast<const uint2*>(p);
  return make_float4(__uint_as_float(w.x << 16), __uint_as_float(w.x & 0xFFFF0000u), __uint_as_float(w.y << 16),
                     __uint_as_float(w.y & 0xFFFF0000u));
}

// kgb_float_to_f8e4m3fn_sat also maps |v| > 448 to 448: the clamp is in it.
__device__ __forceinline__ uint8_t quant(float v) { return kgb_float_to_f8e4m3fn_sat(v); }

// Quantises elements [4 g, 4 g + 4) of row t: value * factor when `multiply`, else value / factor.
template <typename T, bool kVector>
__device__ __forceinline__ void quant_group(const Tensor2& in, uint8_t* out, int64_t o0, int64_t o1, int64_t hidden, int64_t t,
                                            int64_t g, float factor, bool multiply) {
  const T* row = static_cast<const T*>(in.data) + t * in.s0;
  uint8_t* orow = out + t * o0;
  const int64_t j0 = g * 4;
  if (kVector && j0 + 4 <= hidden) {
    const float4 v = load4<T>(row + j0);
    const float4 s = multiply ? make_float4(v.x * factor, v.y * factor, v.z * factor, v.w * factor)
                              : make_float4(v.x / factor, v.y / factor, v.z / factor, v.w / factor);
    const uint32_t packed = quant(s.x) | (quant(s.y) << 8) | (quant(s.z) << 16) | (static_cast<uint32_t>(quant(s.w)) << 24);
    if (o1 == 1 && (reinterpret_cast<uintptr_t>(orow + j0) & 3) == 0) {
      *reinterpret_cast<uint32_t*>(orow + j0) = packed;
    } else {
      for (int q = 0; q < 4; ++q) orow[(j0 + q) * o1] = static_cast<uint8_t>(packed >> (8 * q));
    }
    return;
  }
  for (int64_t j = j0; j < j0 + 4 && j < hidden; ++j) {
    const float x = load<T>(row + j * in.s1);
    orow[j * o1] = quant(multiply ? x * factor : x / factor);
  }
}

// Static and dynamic: every element times 1 / scale.
template <typename T, bool kVector>
__global__ void __launch_bounds__(kThreads) quant_per_tensor(Tensor2 in, uint8_t* out, int64_t o0, int64_t o1, int64_t tokens,
                                                             int64_t hidden, const float* scale) {
  const float inv = 1.0f / *scale;
  const int64_t groups = (hidden + 3) / 4, total = tokens * groups;
  for (int64_t w = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; w < total;
       w += static_cast<int64_t>(gridDim.x) * kThreads) {
    const int64_t t = w / groups, g = w - t * groups;
    quant_group<T, kVector>(in, out, o0, o1, hidden, t, g, inv, true);
  }
}

// A tree in shared memory (wavefronts are 64 lanes on gfx90a, 32 on RDNA):
// every thread gets the block's maximum.
__device__ __forceinline__ float block_max(float v, float* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] = fmaxf(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  v = shared[0];
  __syncthreads();
  return v;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) absmax_all(Tensor2 in, int64_t tokens, int64_t hidden, float* absmax) {
  __shared__ float partial[kThreads];
  float m = 0.0f;
  const int64_t total = tokens * hidden;
  for (int64_t w = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; w < total;
       w += static_cast<int64_t>(gridDim.x) * kThreads) {
    const int64_t t = w / hidden, j = w - t * hidden;
    m = fmaxf(m, fabsf(load<T>(static_cast<const T*>(in.data) + t * in.s0 + j * in.s1)));
  }
  m = block_max(m, partial);
  // Non-negative floats order as their bits.
  if (threadIdx.x == 0) atomicMax(reinterpret_cast<unsigned int*>(absmax), __float_as_uint(m));
}

__global__ void zero_scale(float* scale) { *scale = 0.0f; }
__global__ void absmax_to_scale(float* scale) { *scale = *scale / kFp8Max; }

// One block per row: absmax, scale, then the row quantised by division.
template <typename T, bool kVector>
__global__ void __launch_bounds__(kThreads) quant_per_token(Tensor2 in, uint8_t* out, int64_t o0, int64_t o1, int64_t hidden,
                                                            float* scale, int64_t scale_s0, const float* scale_ub) {
  __shared__ float partial[kThreads];
  __shared__ float row_scale;
  const int64_t t = blockIdx.x;
  const T* row = static_cast<const T*>(in.data) + t * in.s0;
  float m = 0.0f;
  for (int64_t j = threadIdx.x; j < hidden; j += kThreads) m = fmaxf(m, fabsf(load<T>(row + j * in.s1)));
  m = block_max(m, partial);
  if (threadIdx.x == 0) {
    if (scale_ub) m = fminf(m, *scale_ub);
    const float s = fmaxf(m / kFp8Max, 1.0f / (kFp8Max * 512.0f));
    scale[t * scale_s0] = s;
    row_scale = s;
  }
  __syncthreads();
  const float s = row_scale;
  const int64_t groups = (hidden + 3) / 4;
  for (int64_t g = threadIdx.x; g < groups; g += kThreads) quant_group<T, kVector>(in, out, o0, o1, hidden, t, g, s, false);
}

unsigned grid_for(int64_t work) {
  int64_t b = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : b > 8192 ? 8192 : b);
}

// Unit inner stride and row starts aligned for a 4-element vector load.
bool vector_ok(const kgb_tensor* input) {
  const int64_t elem = kgb_dtype_size(input->dtype), bytes = 4 * elem;
  return (input->strides[1] == 1 || input->sizes[1] <= 1) && (input->sizes[0] <= 1 || (input->strides[0] * elem) % bytes == 0) &&
         reinterpret_cast<uintptr_t>(input->data) % static_cast<uintptr_t>(bytes) == 0;
}

bool shapes_ok(const kgb_tensor* result, const kgb_tensor* input) {
  return input->rank == 2 && result->rank == 2 && result->sizes[0] == input->sizes[0] && result->sizes[1] == input->sizes[1] &&
         result->dtype == KGB_F8E4M3FN;
}

enum class Mode { Static, Dynamic, PerToken };

template <typename T, bool kVector>
int run(Mode mode, kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, const kgb_tensor* scale_ub,
        hipStream_t stream) {
  const Tensor2 in{input->data, input->strides[0], input->strides[1]};
  uint8_t* out = static_cast<uint8_t*>(result->data);
  const int64_t tokens = input->sizes[0], hidden = input->sizes[1], groups = (hidden + 3) / 4;
  switch (mode) {
    case Mode::Static:
      quant_per_tensor<T, kVector><<<grid_for(tokens * groups), kThreads, 0, stream>>>(
          in, out, result->strides[0], result->strides[1], tokens, hidden, static_cast<const float*>(scale->data));
      break;
    case Mode::Dynamic: {
      float* s = static_cast<float*>(scale->data);
      zero_scale<<<1, 1, 0, stream>>>(s);
      absmax_all<T><<<grid_for(tokens * hidden), kThreads, 0, stream>>>(in, tokens, hidden, s);
      absmax_to_scale<<<1, 1, 0, stream>>>(s);
      if (tokens > 0)
        quant_per_tensor<T, kVector><<<grid_for(tokens * groups), kThreads, 0, stream>>>(in, out, result->strides[0],
                                                                                        result->strides[1], tokens, hidden, s);
      break;
    }
    case Mode::PerToken:
      quant_per_token<T, kVector><<<static_cast<unsigned>(tokens), kThreads, 0, stream>>>(
          in, out, result->strides[0], result->strides[1], hidden, static_cast<float*>(scale->data), scale->strides[0],
          scale_ub ? static_cast<const float*>(scale_ub->data) : nullptr);
      break;
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

template <typename T>
int run_typed(Mode mode, kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, const kgb_tensor* scale_ub,
              hipStream_t stream) {
  return vector_ok(input) ? run<T, true>(mode, result, input, scale, scale_ub, stream)
                          : run<T, false>(mode, result, input, scale, scale_ub, stream);
}

int dispatch(Mode mode, kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, const kgb_tensor* scale_ub,
             kgb_stream stream) {
  if (!shapes_ok(result, input) || scale->dtype != KGB_F32) return KGB_ERR_INVALID;
  // No rows: nothing to write, except the dynamic op's scale (0, from an empty max).
  if (input->sizes[0] == 0 && mode != Mode::Dynamic) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  switch (input->dtype) {
    case KGB_F32: return run_typed<float>(mode, result, input, scale, scale_ub, s);
    case KGB_F16: return run_typed<F16>(mode, result, input, scale, scale_ub, s);
    case KGB_BF16: return run_typed<BF16>(mode, result, input, scale, scale_ub, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

}  // namespace

extern "C" int kgb_vllm_scaled_fp8_quant(kgb_tensor* result, const kgb_tensor* input, const kgb_tensor* scale, kgb_stream stream) {
  return dispatch(Mode::Static, result, input, scale, nullptr, stream);
}

extern "C" int kgb_vllm_scaled_fp8_quant_dynamic(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale,
                                                 kgb_stream stream) {
  return dispatch(Mode::Dynamic, result, input, scale, nullptr, stream);
}

extern "C" int kgb_vllm_scaled_fp8_quant_dynamic_per_token(kgb_tensor* result, const kgb_tensor* input, kgb_tensor* scale,
                                                           const kgb_tensor* scale_ub, kgb_stream stream) {
  if (scale_ub && scale_ub->dtype != KGB_F32) return KGB_ERR_INVALID;
  return dispatch(Mode::PerToken, result, input, scale, scale_ub, stream);
}
