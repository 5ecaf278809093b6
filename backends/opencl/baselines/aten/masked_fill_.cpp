// aten/masked_fill_, plain OpenCL baseline: one work-item per element of
// self, mask broadcast by stride 0; the value is converted on the host into
// self's dtype (Scalar) or read from the rank-0 tensor (Tensor).
#include <cstdint>
#include <cstring>

#include "../plain_common.h"
#include "kgb_entries/aten/masked_fill_.h"
#include "kgb_half.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
__kernel void masked_fill(__global S* p, long po, __global const uchar* m, long mo, __global const S* v, long vo,
                          Dims g, int rank, long n, int from_buffer, S bits) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  if (m[mo + b]) p[po + a] = from_buffer ? v[vo] : bits;
}
)CLC";

// The dtype whose storage type has the element's size: the fill copies bits.
const char* options_for(int32_t dtype) {
  switch (kgb_dtype_size(dtype)) {
    case 2: return dtype_options(KGB_F16);  // ushort
    case 4: return dtype_options(KGB_I32);  // int
    case 8: return dtype_options(KGB_I64);  // long
    default: return nullptr;
  }
}

int run(kgb_tensor* self, const kgb_tensor* mask, const kgb_tensor* value, uint64_t bits, kgb_stream stream) {
  if (mask->dtype != KGB_BOOL || self->dtype == KGB_BOOL) return KGB_ERR_UNSUPPORTED;
  Dims g;
  for (int d = 0; d < self->rank; ++d) {
    const int k = d - (self->rank - mask->rank);
    g.add(self->sizes[d], self->strides[d], k >= 0 && mask->sizes[k] != 1 ? mask->strides[k] : 0);
  }
  if (g.count == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, options_for(self->dtype), "masked_fill");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(self).tensor(mask).tensor(value ? value : self).dims(g).value(g.count).value(static_cast<cl_int>(value != nullptr));
  if (args.error == CL_SUCCESS) args.error = clSetKernelArg(k, args.next++, static_cast<size_t>(kgb_dtype_size(self->dtype)), &bits);
  return args.error == CL_SUCCESS ? launch(stream, k, g.count) : KGB_ERR_INVALID;
}

int masked_fill_scalar(kgb_tensor* self, const kgb_tensor* mask, kgb_scalar value, kgb_stream stream) {
  const double real = value.dtype == KGB_F64 ? value.v.f : static_cast<double>(value.v.i);
  const int64_t integer = value.dtype == KGB_F64 ? static_cast<int64_t>(value.v.f) : value.v.i;
  uint64_t bits = 0;
  switch (self->dtype) {
    case KGB_F32: { const float f = static_cast<float>(real); std::memcpy(&bits, &f, 4); break; }
    case KGB_F64: std::memcpy(&bits, &real, 8); break;
    case KGB_F16: bits = kgb_float_to_f16(static_cast<float>(real)); break;
    case KGB_BF16: bits = kgb_float_to_bf16(static_cast<float>(real)); break;
    case KGB_I32: bits = static_cast<uint32_t>(static_cast<int32_t>(integer)); break;
    case KGB_I64: bits = static_cast<uint64_t>(integer); break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  return run(self, mask, nullptr, bits, stream);
}

int masked_fill_tensor(kgb_tensor* self, const kgb_tensor* mask, const kgb_tensor* value, kgb_stream stream) {
  return run(self, mask, value, 0, stream);
}

}  // namespace
KGB_BASELINE(aten_masked_fill_, kKind, masked_fill_scalar);
KGB_BASELINE(aten_masked_fill__Tensor, kKind, masked_fill_tensor);
}  // namespace kgb::opencl::plain
