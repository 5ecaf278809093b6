// aten/arange in HIP, a port of the CUDA solution: out[i] = start + step *
// (acc)i with acc = float for f16/bf16/f32, double for f64 and int64 for the
// integer dtypes (ATen's CUDA rule), rounded into the element type. On a
// unit-stride out each thread computes 16 bytes' worth of consecutive values
// in registers and writes them with one 16-byte store (after a head of
// elements up to 16-byte alignment, before a short tail), grid-stride; a
// strided out gets one element per thread.
#include <hip/hip_runtime.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

template <typename T> struct Elem;
template <> struct Elem<float> {
  using Acc = float;
  static __device__ __forceinline__ float store(float v) { return v; }
};
template <> struct Elem<double> {
  using Acc = double;
  static __device__ __forceinline__ double store(double v) { return v; }
};
struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };
template <> struct Elem<F16> {
  using Acc = float;
  static __device__ __forceinline__ F16 store(float v) { return F16{kgb_float_to_f16(v)}; }
};
template <> struct Elem<BF16> {
  using Acc = float;
  static __device__ __forceinline__ BF16 store(float v) { return BF16{kgb_float_to_bf16(v)}; }
};
template <typename I> struct IntElem {
  using Acc = int64_t;
  static __device__ __forceinline__ I store(int64_t v) { return static_cast<I>(v); }
};
template <> struct Elem<int64_t> : IntElem<int64_t> {};
template <> struct Elem<int32_t> : IntElem<int32_t> {};
template <> struct Elem<int16_t> : IntElem<int16_t> {};
template <> struct Elem<int8_t> : IntElem<int8_t> {};
template <> struct Elem<uint8_t> : IntElem<uint8_t> {};

template <typename T>
__device__ __forceinline__ T value_at(typename Elem<T>::Acc start, typename Elem<T>::Acc step, int64_t i) {
  using Acc = typename Elem<T>::Acc;
  return Elem<T>::store(start + step * static_cast<Acc>(i));
}

template <typename T>
__global__ void arange_contiguous(T* __restrict__ p, int64_t n, int64_t head, typename Elem<T>::Acc start,
                                  typename Elem<T>::Acc step) {
  constexpr int kVec = 16 / sizeof(T);
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  if (first < head) p[first] = value_at<T>(start, step, first);
  const int64_t packs = (n - head) / kVec;
  for (int64_t v = first; v < packs; v += stride) {
    const int64_t i0 = head + v * kVec;
    union {
      uint4 u;
      T t[kVec];
    } pack;
#pragma unroll
    for (int k = 0; k < kVec; ++k) pack.t[k] = value_at<T>(start, step, i0 + k);
    *reinterpret_cast<uint4*>(p + i0) = pack.u;
  }
  for (int64_t i = head + packs * kVec + first; i < n; i += stride) p[i] = value_at<T>(start, step, i);
}

template <typename T>
__global__ void arange_strided(T* __restrict__ p, int64_t n, int64_t out_stride, typename Elem<T>::Acc start,
                               typename Elem<T>::Acc step) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    p[i * out_stride] = value_at<T>(start, step, i);
}

unsigned blocks_for(int64_t items) {
  int64_t b = (items + kThreads - 1) / kThreads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b < 4096 ? b : 4096);
}

template <typename T>
int launch(kgb_tensor* out, typename Elem<T>::Acc start, typename Elem<T>::Acc step, hipStream_t s) {
  T* p = static_cast<T*>(out->data);
  const int64_t n = out->sizes[0], stride = out->strides[0];
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  if (stride == 1 && addr % sizeof(T) == 0) {
    int64_t head = static_cast<int64_t>((16 - (addr & 15)) & 15) / static_cast<int64_t>(sizeof(T));
    if (head > n) head = n;
    arange_contiguous<T><<<blocks_for((n - head) / (16 / sizeof(T)) + 1), kThreads, 0, s>>>(p, n, head, start, step);
  } else {
    arange_strided<T><<<blocks_for(n), kThreads, 0, s>>>(p, n, stride, start, step);
  }
  return hipGetLastError() == hipSuccess ? KGB_OK : KGB_ERR_INVALID;
}

double as_double(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }
int64_t as_int(const kgb_scalar& s) { return s.dtype == KGB_F64 ? static_cast<int64_t>(s.v.f) : s.v.i; }

int arange(const kgb_scalar& start, const kgb_scalar& step, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  if (out->rank != 1 || (dtype && *dtype != out->dtype)) return KGB_ERR_INVALID;
  if (out->sizes[0] == 0) return KGB_OK;
  hipStream_t s = static_cast<hipStream_t>(stream);
  const float fs = static_cast<float>(as_double(start)), fd = static_cast<float>(as_double(step));
  const int64_t is = as_int(start), id = as_int(step);
  switch (out->dtype) {
    case KGB_F32: return launch<float>(out, fs, fd, s);
    case KGB_F16: return launch<F16>(out, fs, fd, s);
    case KGB_BF16: return launch<BF16>(out, fs, fd, s);
    case KGB_F64: return launch<double>(out, as_double(start), as_double(step), s);
    case KGB_I64: return launch<int64_t>(out, is, id, s);
    case KGB_I32: return launch<int32_t>(out, is, id, s);
    case KGB_I16: return launch<int16_t>(out, is, id, s);
    case KGB_I8: return launch<int8_t>(out, is, id, s);
    case KGB_U8: return launch<uint8_t>(out, is, id, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}

kgb_scalar int_scalar(int64_t v) {
  kgb_scalar s;
  s.dtype = KGB_I64;
  s.reserved = 0;
  s.v.i = v;
  return s;
}

}  // namespace

extern "C" int kgb_aten_arange(kgb_scalar end, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  (void)end;
  return arange(int_scalar(0), int_scalar(1), dtype, out, stream);
}

extern "C" int kgb_aten_arange_start(kgb_scalar start, kgb_scalar end, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  (void)end;
  return arange(start, int_scalar(1), dtype, out, stream);
}

extern "C" int kgb_aten_arange_start_step(kgb_scalar start, kgb_scalar end, kgb_scalar step, const int* dtype, kgb_tensor* out,
                                          kgb_stream stream) {
  (void)end;
  return arange(start, step, dtype, out, stream);
}
