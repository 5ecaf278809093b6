// aten/masked_fill_ in OpenCL: self[i] = value where the broadcast mask is
// true, in place. The fill moves raw elements of self's size (uchar, ushort,
// uint, ulong; -DE selects it): the Scalar overload converts the value on the
// host into self's dtype, the Tensor overload reads the rank-0 value tensor
// in the kernel. The views are folded (mask's broadcast dims stride 0, size-1
// dims dropped, dims contiguous for both merged); flat contiguous views run a
// kernel without index arithmetic, anything else one work-item per element.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#ifndef E
#define E uint
#endif
/* value: the Tensor overload's value buffer (FROM_BUFFER 1) or unused; bits: the Scalar's bytes. */
__kernel void fill_flat(__global E* p, long p_off, __global const uchar* m, long m_off, __global const E* value,
                        long value_off, long n, E bits) {
  long i = get_global_id(0);
  if (i >= n || !m[m_off + i]) return;
#if FROM_BUFFER
  p[p_off + i] = value[value_off];
#else
  p[p_off + i] = bits;
#endif
}

typedef struct { long size[8]; long sp[8]; long sm[8]; } Geometry;

__kernel void fill_nd(__global E* p, long p_off, __global const uchar* m, long m_off, __global const E* value,
                      long value_off, Geometry g, int rank, long n, E bits) {
  long i = get_global_id(0);
  if (i >= n) return;
  long ip = p_off, im = m_off, r = i;
  for (int d = rank - 1; d > 0; --d) {
    long q = r / g.size[d], k = r - q * g.size[d];
    r = q;
    ip += k * g.sp[d]; im += k * g.sm[d];
  }
  ip += r * g.sp[0]; im += r * g.sm[0];
  if (!m[im]) return;
#if FROM_BUFFER
  p[ip] = value[value_off];
#else
  p[ip] = bits;
#endif
}
)CLC";

struct Geometry {
  cl_long size[8], sp[8], sm[8];
};

bool build_geometry(const kgb_tensor* self, const kgb_tensor* mask, Geometry& g, int& rank) {
  if (mask->rank > self->rank) return false;
  rank = 0;
  for (int d = 0; d < self->rank; ++d) {
    const cl_long n = self->sizes[d], sp = self->strides[d];
    const int k = d - (self->rank - mask->rank);
    cl_long sm = 0;
    if (k >= 0 && mask->sizes[k] != 1) {
      if (mask->sizes[k] != n) return false;
      sm = mask->strides[k];
    }
    if (n == 1) continue;
    const int p = rank - 1;
    if (p >= 0 && g.sp[p] == sp * n && g.sm[p] == sm * n) {
      g.size[p] *= n;
      g.sp[p] = sp;
      g.sm[p] = sm;
      continue;
    }
    g.size[rank] = n;
    g.sp[rank] = sp;
    g.sm[rank] = sm;
    ++rank;
  }
  if (rank == 0) {
    g.size[0] = 1;
    g.sp[0] = g.sm[0] = 0;
    rank = 1;
  }
  for (int d = rank; d < 8; ++d) g.size[d] = 1, g.sp[d] = g.sm[d] = 0;
  return true;
}

bool supported(int32_t t) {
  return t == KGB_F32 || t == KGB_F64 || t == KGB_F16 || t == KGB_BF16 || t == KGB_I32 || t == KGB_I64 || t == KGB_BOOL;
}

// value: the rank-0 value tensor (Tensor overload) or nullptr (use bits).
int masked_fill(kgb_tensor* self, const kgb_tensor* mask, const kgb_tensor* value, uint64_t bits, kgb_stream stream) {
  if (mask->dtype != KGB_BOOL || !supported(self->dtype)) return KGB_ERR_UNSUPPORTED;
  Geometry g{};
  int rank = 0;
  if (!build_geometry(self, mask, g, rank)) return KGB_ERR_INVALID;
  const cl_long n = kgb_numel(self);
  if (n == 0) return KGB_OK;
  const int size = kgb_dtype_size(self->dtype);
  const char* type = size == 1 ? "uchar" : size == 2 ? "ushort" : size == 4 ? "uint" : "ulong";
  char options[96];
  snprintf(options, sizeof options, "-cl-std=CL1.2 -DE=%s -DFROM_BUFFER=%d", type, value ? 1 : 0);
  const bool flat = rank == 1 && g.sp[0] == 1 && g.sm[0] == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, flat ? "fill_flat" : "fill_nd", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, mask);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, value ? value : self);  // self stands in when the value is a Scalar
  cl_uint next = 6;
  if (!flat) {
    err |= clSetKernelArg(k, next++, sizeof g, &g);
    err |= clSetKernelArg(k, next++, sizeof rank, &rank);
  }
  err |= clSetKernelArg(k, next++, sizeof n, &n);
  // The kernel's E argument has the element's size; little-endian: the low bytes of bits.
  err |= clSetKernelArg(k, next++, static_cast<size_t>(size), &bits);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

// The Scalar's bytes in self's dtype (a cast: f16/bf16 round to nearest even).
uint64_t value_bits(int32_t dtype, kgb_scalar value) {
  const double real = value.dtype == KGB_F64 ? value.v.f : static_cast<double>(value.v.i);
  const int64_t integer = value.dtype == KGB_F64 ? static_cast<int64_t>(value.v.f) : value.v.i;
  switch (dtype) {
    case KGB_F32: { const float f = static_cast<float>(real); uint32_t u; memcpy(&u, &f, 4); return u; }
    case KGB_F64: { uint64_t u; memcpy(&u, &real, 8); return u; }
    case KGB_F16: return kgb_float_to_f16(static_cast<float>(real));
    case KGB_BF16: return kgb_float_to_bf16(static_cast<float>(real));
    case KGB_I32: return static_cast<uint32_t>(static_cast<int32_t>(integer));
    case KGB_I64: return static_cast<uint64_t>(integer);
    default: return integer != 0 || real != 0;
  }
}

}  // namespace

extern "C" int kgb_aten_masked_fill_(kgb_tensor* self, const kgb_tensor* mask, kgb_scalar value, kgb_stream stream) {
  return masked_fill(self, mask, nullptr, value_bits(self->dtype, value), stream);
}

extern "C" int kgb_aten_masked_fill__Tensor(kgb_tensor* self, const kgb_tensor* mask, const kgb_tensor* value,
                                            kgb_stream stream) {
  if (value->dtype != self->dtype || kgb_numel(value) != 1) return KGB_ERR_UNSUPPORTED;
  return masked_fill(self, mask, value, 0, stream);
}
