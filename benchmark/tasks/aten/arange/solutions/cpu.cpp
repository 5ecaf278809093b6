// aten/arange on the CPU: out[i] = start + step * i in the accumulation type
// of ATen's CUDA kernel (float for f16/bf16/f32, double for f64, int64 for
// integers), rounded into the element type. The index space is cut into
// blocks spread over cores with OpenMP; inside a block the unit-stride loop
// converts a 32-bit index, multiplies and adds, which GCC vectorises
// (vcvtdq2ps + fma lanes), and f16/bf16 go through kgb_half.h's branch-free
// stores. A strided out takes the same loop with a stride.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_kernel.h"

namespace {

constexpr int64_t kBlock = 1 << 15;

double as_double(const kgb_scalar& s) { return s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i); }
int64_t as_int(const kgb_scalar& s) { return s.dtype == KGB_F64 ? static_cast<int64_t>(s.v.f) : s.v.i; }

struct Identity {
  template <typename A>
  A operator()(A v) const { return v; }
};
struct ToF16 {
  uint16_t operator()(float v) const { return kgb_float_to_f16(v); }
};
struct ToBF16 {
  uint16_t operator()(float v) const { return kgb_float_to_bf16(v); }
};
template <typename T>
struct Narrow {
  T operator()(int64_t v) const { return static_cast<T>(v); }
};

// double (f64) or int64 (integer dtypes) accumulation.
template <typename T, typename Acc, typename Store>
void run(T* p, int64_t n, int64_t stride, Acc start, Acc step, Store store) {
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (blocks > 2)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = b * kBlock, last = first + kBlock < n ? first + kBlock : n;
    if (stride == 1) {
      for (int64_t i = first; i < last; ++i) p[i] = store(start + step * static_cast<Acc>(i));
    } else {
      for (int64_t i = first; i < last; ++i) p[i * stride] = store(start + step * static_cast<Acc>(i));
    }
  }
}

// float accumulation (f16, bf16, f32) with a 32-bit index, which converts to
// float in vector lanes (the caller checks n fits).
template <typename T, typename Store>
void run_float(T* p, int64_t n, int64_t stride, float start, float step, Store store) {
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (blocks > 2)
  for (int64_t b = 0; b < blocks; ++b) {
    const int32_t first = static_cast<int32_t>(b * kBlock);
    const int32_t last = static_cast<int32_t>(b * kBlock + kBlock < n ? b * kBlock + kBlock : n);
    if (stride == 1) {
      for (int32_t i = first; i < last; ++i) p[i] = store(start + step * static_cast<float>(i));
    } else {
      for (int32_t i = first; i < last; ++i) p[i * stride] = store(start + step * static_cast<float>(i));
    }
  }
}

int arange(const kgb_scalar& start, const kgb_scalar& step, const int* dtype, kgb_tensor* out) {
  if (out->rank != 1 || (dtype && *dtype != out->dtype)) return KGB_ERR_INVALID;
  const int64_t n = out->sizes[0], stride = out->strides[0];
  if (n == 0) return KGB_OK;
  if (n > INT32_MAX) return KGB_ERR_UNSUPPORTED;
  void* p = out->data;
  const float fs = static_cast<float>(as_double(start)), fd = static_cast<float>(as_double(step));
  const int64_t is = as_int(start), id = as_int(step);
  switch (out->dtype) {
    case KGB_F32: run_float(static_cast<float*>(p), n, stride, fs, fd, Identity{}); break;
    case KGB_F16: run_float(static_cast<uint16_t*>(p), n, stride, fs, fd, ToF16{}); break;
    case KGB_BF16: run_float(static_cast<uint16_t*>(p), n, stride, fs, fd, ToBF16{}); break;
    case KGB_F64: run(static_cast<double*>(p), n, stride, as_double(start), as_double(step), Identity{}); break;
    case KGB_I64: run(static_cast<int64_t*>(p), n, stride, is, id, Identity{}); break;
    case KGB_I32: run(static_cast<int32_t*>(p), n, stride, is, id, Narrow<int32_t>{}); break;
    case KGB_I16: run(static_cast<int16_t*>(p), n, stride, is, id, Narrow<int16_t>{}); break;
    case KGB_I8: run(static_cast<int8_t*>(p), n, stride, is, id, Narrow<int8_t>{}); break;
    case KGB_U8: run(static_cast<uint8_t*>(p), n, stride, is, id, Narrow<uint8_t>{}); break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  return KGB_OK;
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
  (void)stream;
  return arange(int_scalar(0), int_scalar(1), dtype, out);
}

extern "C" int kgb_aten_arange_start(kgb_scalar start, kgb_scalar end, const int* dtype, kgb_tensor* out, kgb_stream stream) {
  (void)end;
  (void)stream;
  return arange(start, int_scalar(1), dtype, out);
}

extern "C" int kgb_aten_arange_start_step(kgb_scalar start, kgb_scalar end, kgb_scalar step, const int* dtype, kgb_tensor* out,
                                          kgb_stream stream) {
  (void)end;
  (void)stream;
  return arange(start, step, dtype, out);
}
