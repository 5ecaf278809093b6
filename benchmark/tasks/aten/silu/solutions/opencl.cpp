// aten/silu in OpenCL: out = x / (1 + exp(-x)), elementwise.
// The quotient x / (1 + exp(-x)), as ATen evaluates it.
// The host folds self and out into the fewest dimensions (size-1 dims
// dropped, dims contiguous in both merged): a unit-stride problem runs the
// flat kernel (four elements per work-item), anything else one work-item per
// element with offsets from the linear index. The program is built once per
// (input, output) dtype pair (-DKGB_IN/-DKGB_OUT); f16/bf16 are ushort data
// computed in float, f64 only where the device has fp64.
#include <stdint.h>

#include <string>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_IN
#define KGB_IN 6
#endif
#ifndef KGB_OUT
#define KGB_OUT 6
#endif
#if KGB_OUT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double C;
#else
typedef float C;
#endif

#if KGB_IN == 6
typedef float SI;
#define LOAD(v) (v)
#elif KGB_IN == 7
typedef double SI;
#define LOAD(v) (v)
#elif KGB_IN == 4
typedef ushort SI;
#define LOAD(v) kgb_f16_to_float(v)
#elif KGB_IN == 5
typedef ushort SI;
#define LOAD(v) kgb_bf16_to_float(v)
#endif

#if KGB_OUT == 6
typedef float SO;
#define STORE(v) (v)
#elif KGB_OUT == 7
typedef double SO;
#define STORE(v) (v)
#elif KGB_OUT == 4
typedef ushort SO;
#define STORE(v) kgb_float_to_f16(v)
#elif KGB_OUT == 5
typedef ushort SO;
#define STORE(v) kgb_float_to_bf16(v)
#endif

// The op in compute type C.
C op(C x) {
  return x / ((C)1 + exp(-x));
}

__kernel void unary_flat(__global const SI* a, long a_off, __global SO* o, long o_off, long n) {
  long i = get_global_id(0) * 4;
  a += a_off;
  o += o_off;
  if (i + 4 <= n) {
    o[i] = STORE(op((C)LOAD(a[i])));
    o[i + 1] = STORE(op((C)LOAD(a[i + 1])));
    o[i + 2] = STORE(op((C)LOAD(a[i + 2])));
    o[i + 3] = STORE(op((C)LOAD(a[i + 3])));
  } else {
    for (; i < n; ++i) o[i] = STORE(op((C)LOAD(a[i])));
  }
}

typedef struct { long size[8]; long so[8]; long si[8]; } Geometry;

__kernel void unary_nd(__global const SI* a, long a_off, __global SO* o, long o_off, Geometry g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long oo = o_off, io = a_off, r = i;
  for (int d = rank - 1; d > 0; --d) {
    long q = r / g.size[d], k = r - q * g.size[d];
    r = q;
    oo += k * g.so[d];
    io += k * g.si[d];
  }
  oo += r * g.so[0];
  io += r * g.si[0];
  o[oo] = STORE(op((C)LOAD(a[io])));
}
)CLC";

struct Geometry {
  cl_long size[8], so[8], si[8];
};

bool fold(const kgb_tensor* self, const kgb_tensor* out, Geometry& g, int& rank) {
  if (self->rank != out->rank || out->rank > 8) return false;
  rank = 0;
  for (int d = 0; d < out->rank; ++d) {
    if (self->sizes[d] != out->sizes[d]) return false;
    if (out->sizes[d] == 1) continue;
    const int p = rank - 1;
    if (p >= 0 && g.so[p] == out->strides[d] * out->sizes[d] && g.si[p] == self->strides[d] * out->sizes[d]) {
      g.size[p] *= out->sizes[d];
      g.so[p] = out->strides[d];
      g.si[p] = self->strides[d];
      continue;
    }
    g.size[rank] = out->sizes[d];
    g.so[rank] = out->strides[d];
    g.si[rank] = self->strides[d];
    ++rank;
  }
  if (rank == 0) {
    rank = 1;
    g.size[0] = 1;
    g.so[0] = g.si[0] = 0;
  }
  for (int d = rank; d < 8; ++d) g.size[d] = 1, g.so[d] = g.si[d] = 0;
  return true;
}

// floating types only, out has self's dtype.
bool supported(int32_t in, int32_t out) {
  switch (in) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: return out == in;
    default: return false;
  }
}

}  // namespace

extern "C" int kgb_aten_silu(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  if (!supported(self->dtype, out->dtype)) return KGB_ERR_UNSUPPORTED;
  if (out->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  Geometry g{};
  int rank = 0;
  if (!fold(self, out, g, rank)) return KGB_ERR_INVALID;
  const cl_long count = kgb_numel(out);
  if (count == 0) return KGB_OK;
  const std::string options = "-cl-std=CL1.2 -DKGB_IN=" + std::to_string(self->dtype) + " -DKGB_OUT=" + std::to_string(out->dtype);
  const bool flat = rank == 1 && g.so[0] == 1 && g.si[0] == 1;
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options.c_str(), flat ? "unary_flat" : "unary_nd", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, out);
  cl_uint next = 4;
  if (!flat) {
    err |= clSetKernelArg(k, next++, sizeof g, &g);
    err |= clSetKernelArg(k, next++, sizeof rank, &rank);
  }
  err |= clSetKernelArg(k, next++, sizeof count, &count);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t items = flat ? static_cast<size_t>((count + 3) / 4) : static_cast<size_t>(count);
  const size_t global = (items + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
