// Shared by the plain OpenCL baselines of aten/item and
// aten/_local_scalar_dense (the same op): a blocking read of the element's
// bytes on the harness queue, then the value widened on the host into
// PyTorch's Scalar category (what PyTorch's own item() does on a device:
// copy, sync, convert).
#pragma once

#include <cstring>

#include "../plain_common.h"
#include "kgb_half.h"

namespace kgb::opencl::plain {

template <typename T>
inline T scalar_element(const unsigned char* bytes) {
  T v;
  std::memcpy(&v, bytes, sizeof v);
  return v;
}

inline int read_scalar(const kgb_tensor* self, kgb_scalar* out, kgb_stream stream) {
  const int32_t bytes_per_element = kgb_dtype_size(self->dtype);
  if (kgb_numel(self) != 1 || bytes_per_element == 0) return KGB_ERR_INVALID;
  cl_mem buffer = nullptr;
  cl_long offset = 0;
  if (kgb_cl_tensor_buffer(stream, self, &buffer, &offset) != CL_SUCCESS) return KGB_ERR_INVALID;
  unsigned char bytes[16] = {};
  if (clEnqueueReadBuffer(kgb_cl_get_queue(stream), buffer, CL_TRUE, static_cast<size_t>(offset * bytes_per_element),
                          static_cast<size_t>(bytes_per_element), bytes, 0, nullptr, nullptr) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  kgb_scalar value{};
  const int32_t t = self->dtype;
  if (t == KGB_BOOL) {
    value.dtype = KGB_BOOL;
    value.v.i = bytes[0] != 0;
  } else if (t == KGB_C64 || t == KGB_C128) {
    value.dtype = KGB_C128;
    value.v.c.re = t == KGB_C64 ? scalar_element<float>(bytes) : scalar_element<double>(bytes);
    value.v.c.im = t == KGB_C64 ? scalar_element<float>(bytes + 4) : scalar_element<double>(bytes + 8);
  } else if (t == KGB_F16 || t == KGB_BF16 || t == KGB_F32 || t == KGB_F64) {
    value.dtype = KGB_F64;
    value.v.f = t == KGB_F16    ? kgb_f16_to_float(scalar_element<uint16_t>(bytes))
                : t == KGB_BF16 ? kgb_bf16_to_float(scalar_element<uint16_t>(bytes))
                : t == KGB_F32  ? scalar_element<float>(bytes)
                                : scalar_element<double>(bytes);
  } else if (t == KGB_U8 || t == KGB_I8 || t == KGB_I16 || t == KGB_I32 || t == KGB_I64) {
    value.dtype = KGB_I64;
    value.v.i = t == KGB_U8    ? scalar_element<uint8_t>(bytes)
                : t == KGB_I8  ? scalar_element<int8_t>(bytes)
                : t == KGB_I16 ? scalar_element<int16_t>(bytes)
                : t == KGB_I32 ? scalar_element<int32_t>(bytes)
                               : scalar_element<int64_t>(bytes);
  } else {
    return KGB_ERR_UNSUPPORTED;
  }
  *out = value;
  return KGB_OK;
}

}  // namespace kgb::opencl::plain
