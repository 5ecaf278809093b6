// aten/_to_copy in OpenCL: out = self converted to out's dtype (a C cast, as
// ATen's copy kernels convert), out being a fresh tensor in ATen's preserve
// layout. The launcher folds both views into the fewest dims in out's storage
// order (size-1 dims dropped, dims contiguous for both merged). A flat block
// (what a dense self always gives, since out keeps its strides) runs a kernel
// converting 4 consecutive elements per work-item with vload4/vstore4 (which
// need only element alignment), the remainder one per work-item; anything
// else runs one work-item per element with strided offsets. The program is
// built per dtype pair (-DDS, -DDD), so the conversion folds into the loads
// and stores; f16/bf16 are ushort data converted in the kernel.
#include <stdint.h>
#include <stdio.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
/* Defaults (f32 into f16) so that the source also compiles alone; the launcher sets them. */
#ifndef DS
#define DS 6
#define DD 4
#define NEED_FP64 0
#endif
#if NEED_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
/* kgb_dtype numbers: bool 0, i32 2, i64 3, f16 4, bf16 5, f32 6, f64 7. Storage types ST (source)
   and DT (target), and W, the source widened without loss (float, double or long). */
#if DS == 6
typedef float ST; typedef float4 ST4; typedef float W;
#elif DS == 7
typedef double ST; typedef double4 ST4; typedef double W;
#elif DS == 4 || DS == 5
typedef ushort ST; typedef ushort4 ST4; typedef float W;
#elif DS == 2
typedef int ST; typedef int4 ST4; typedef long W;
#elif DS == 3
typedef long ST; typedef long4 ST4; typedef long W;
#else
typedef uchar ST; typedef uchar4 ST4; typedef long W;
#endif
#if DD == 6
typedef float DT; typedef float4 DT4;
#elif DD == 7
typedef double DT; typedef double4 DT4;
#elif DD == 4 || DD == 5
typedef ushort DT; typedef ushort4 DT4;
#elif DD == 2
typedef int DT; typedef int4 DT4;
#elif DD == 3
typedef long DT; typedef long4 DT4;
#else
typedef uchar DT; typedef uchar4 DT4;
#endif

W widen(ST x) {
#if DS == 4
  return kgb_f16_to_float(x);
#elif DS == 5
  return kgb_bf16_to_float(x);
#elif DS == 0
  return x != 0;
#else
  return (W)x;
#endif
}

/* Floats round once (16-bit floats through float, as c10::Half/BFloat16 convert), floats into
   integers truncate toward zero, i64 into i32 keeps the low 32 bits, bool is value != 0 (NaN true). */
DT narrow(W w) {
#if DD == 4
  return kgb_float_to_f16((float)w);
#elif DD == 5
  return kgb_float_to_bf16((float)w);
#elif DD == 2 && DS == 3
  return as_int((uint)(w & 0xFFFFFFFFL));
#elif DD == 0
  return (uchar)(w != (W)0);
#else
  return (DT)w;
#endif
}

DT convert(ST x) { return narrow(widen(x)); }

__kernel void convert_flat(__global const ST* s, long s_off, __global DT* o, long o_off, long n) {
  long i = get_global_id(0) * 4;
  if (i + 4 <= n) {
    ST4 v = vload4(0, s + s_off + i);
    DT4 r = (DT4)(convert(v.s0), convert(v.s1), convert(v.s2), convert(v.s3));
    vstore4(r, 0, o + o_off + i);
  } else {
    for (; i < n; ++i) o[o_off + i] = convert(s[s_off + i]);
  }
}

typedef struct { long size[8]; long ss[8]; long so[8]; } Geometry;

__kernel void convert_strided(__global const ST* s, long s_off, __global DT* o, long o_off, Geometry g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a = s_off, b = o_off, rest = i;
  for (int d = rank - 1; d > 0; --d) {
    long q = rest / g.size[d], k = rest - q * g.size[d];
    rest = q;
    a += k * g.ss[d];
    b += k * g.so[d];
  }
  a += rest * g.ss[0];
  b += rest * g.so[0];
  o[b] = convert(s[a]);
}
)CLC";

struct Geometry {
  cl_long size[8], ss[8], so[8];
};

// The dims of both views in out's storage order (largest |stride| first),
// size-1 dims dropped, dims contiguous for both merged.
int fold(const kgb_tensor* self, const kgb_tensor* out, Geometry& g) {
  Geometry raw{};
  int n = 0;
  for (int d = 0; d < out->rank; ++d) {
    if (out->sizes[d] == 1) continue;
    raw.size[n] = out->sizes[d];
    raw.ss[n] = self->strides[d];
    raw.so[n] = out->strides[d];
    ++n;
  }
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0; --j) {
      const cl_long x = raw.so[j - 1] < 0 ? -raw.so[j - 1] : raw.so[j - 1];
      const cl_long y = raw.so[j] < 0 ? -raw.so[j] : raw.so[j];
      if (x >= y) break;
      cl_long t = raw.size[j]; raw.size[j] = raw.size[j - 1]; raw.size[j - 1] = t;
      t = raw.ss[j]; raw.ss[j] = raw.ss[j - 1]; raw.ss[j - 1] = t;
      t = raw.so[j]; raw.so[j] = raw.so[j - 1]; raw.so[j - 1] = t;
    }
  int rank = 0;
  for (int d = 0; d < n; ++d) {
    const int q = rank - 1;
    if (q >= 0 && g.ss[q] == raw.ss[d] * raw.size[d] && g.so[q] == raw.so[d] * raw.size[d]) {
      g.size[q] *= raw.size[d];
      g.ss[q] = raw.ss[d];
      g.so[q] = raw.so[d];
      continue;
    }
    g.size[rank] = raw.size[d];
    g.ss[rank] = raw.ss[d];
    g.so[rank] = raw.so[d];
    ++rank;
  }
  if (rank == 0) {
    g.size[0] = 1;
    g.ss[0] = g.so[0] = 1;
    rank = 1;
  }
  for (int d = rank; d < 8; ++d) g.size[d] = 1, g.ss[d] = g.so[d] = 0;
  return rank;
}

bool supported(int32_t t) {
  return t == KGB_F32 || t == KGB_F64 || t == KGB_F16 || t == KGB_BF16 || t == KGB_I32 || t == KGB_I64 || t == KGB_BOOL;
}

}  // namespace

extern "C" int kgb_aten__to_copy(const kgb_tensor* self, const int* dtype, int non_blocking, kgb_tensor* out,
                                 kgb_stream stream) {
  (void)non_blocking;  // the copy is ordered on the queue either way
  if (!supported(self->dtype) || !supported(out->dtype)) return KGB_ERR_UNSUPPORTED;
  if ((dtype ? *dtype : self->dtype) != out->dtype || self->rank != out->rank) return KGB_ERR_INVALID;
  for (int d = 0; d < self->rank; ++d)
    if (self->sizes[d] != out->sizes[d]) return KGB_ERR_INVALID;
  const cl_long n = kgb_numel(out);
  if (n == 0) return KGB_OK;
  const bool fp64 = self->dtype == KGB_F64 || out->dtype == KGB_F64;
  if (fp64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;

  Geometry g{};
  const int rank = fold(self, out, g);
  const bool flat = rank == 1 && g.ss[0] == 1 && g.so[0] == 1;
  char options[96];
  snprintf(options, sizeof options, "-cl-std=CL1.2 -DDS=%d -DDD=%d -DNEED_FP64=%d", self->dtype, out->dtype, fp64 ? 1 : 0);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, flat ? "convert_flat" : "convert_strided", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, out);
  cl_uint next = 4;
  if (!flat) {
    err |= clSetKernelArg(k, next++, sizeof g, &g);
    err |= clSetKernelArg(k, next++, sizeof rank, &rank);
  }
  err |= clSetKernelArg(k, next++, sizeof n, &n);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t items = flat ? static_cast<size_t>((n + 3) / 4) : static_cast<size_t>(n);
  const size_t global = (items + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
