// aten/diff in OpenCL: out = the n-th forward difference of [prepend, self,
// append] along dim, each difference step rounded to the dtype (16-bit floats
// after every step), integers wrapping, bool steps a != b.
//
// Output element k along dim depends on the joined elements k..k+n only, and
// the n steps restricted to that window give exactly the full computation's
// value: one work-item per output element computes it from its window in
// private memory (unrolled for n <= 4, n <= 32 in all), with no scratch and
// no barriers. Work-items run over out in row-major order (the last dim
// fastest). The program is built per dtype (-DDT) with 64-bit index math;
// f16/bf16 are ushort data converted in the kernel.
#include <stdint.h>
#include <stdio.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr int kMaxOrder = 32;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef DT
#define DT 6 /* f32 when the source is compiled alone */
#endif
#if DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
/* kgb_dtype numbers: bool 0, i32 2, i64 3, f16 4, bf16 5, f32 6, f64 7. S: storage, W: computation. */
#if DT == 6
typedef float S; typedef float W;
#elif DT == 7
typedef double S; typedef double W;
#elif DT == 4 || DT == 5
typedef ushort S; typedef float W;
#elif DT == 2
typedef int S; typedef int W;
#elif DT == 3
typedef long S; typedef long W;
#else
typedef uchar S; typedef uchar W;
#endif

W elem_load(S v) {
#if DT == 4
  return kgb_f16_to_float(v);
#elif DT == 5
  return kgb_bf16_to_float(v);
#elif DT == 0
  return v != 0;
#else
  return v;
#endif
}
S elem_store(W w) {
#if DT == 4
  return kgb_float_to_f16(w);
#elif DT == 5
  return kgb_float_to_bf16(w);
#else
  return w;
#endif
}
/* One difference step, rounded to the dtype. */
W diff_step(W a, W b) {
#if DT == 4
  return kgb_f16_to_float(kgb_float_to_f16(a - b));
#elif DT == 5
  return kgb_bf16_to_float(kgb_float_to_bf16(a - b));
#elif DT == 2
  return as_int(as_uint(a) - as_uint(b));
#elif DT == 3
  return as_long(as_ulong(a) - as_ulong(b));
#elif DT == 0
  return a != b;
#else
  return a - b;
#endif
}

typedef struct {
  long size[8], so[8], s0[8], s1[8], s2[8]; /* out's sizes and strides, the pieces' strides */
  long start1, start2;                      /* joined positions where pieces 1 and 2 begin */
  long n, count;
  int rank, dim, pieces;
} Geometry;

#define SMALL 4
#define MAX_ORDER 32

W at(__global const S* x0, __global const S* x1, __global const S* x2, const Geometry* g, long b0, long b1, long b2,
     long pos) {
  if (g->pieces > 1 && pos >= g->start1) {
    if (g->pieces > 2 && pos >= g->start2) return elem_load(x2[b2 + (pos - g->start2) * g->s2[g->dim]]);
    return elem_load(x1[b1 + (pos - g->start1) * g->s1[g->dim]]);
  }
  return elem_load(x0[b0 + pos * g->s0[g->dim]]);
}

__kernel void diff(__global const S* x0, long o0, __global const S* x1, long o1, __global const S* x2, long o2,
                   __global S* out, long oo, Geometry g) {
  long e = get_global_id(0);
  if (e >= g.count) return;
  long rest = e, o = oo, k = 0, b0 = o0, b1 = o1, b2 = o2;
  for (int d = g.rank - 1; d >= 0; --d) {
    long q = rest / g.size[d], i = rest - q * g.size[d];
    rest = q;
    o += i * g.so[d];
    if (d == g.dim) {
      k = i;
    } else {
      b0 += i * g.s0[d];
      b1 += i * g.s1[d];
      b2 += i * g.s2[d];
    }
  }
  if (g.n <= SMALL) {  /* fully unrolled: the window stays in registers */
    W r[SMALL + 1];
#pragma unroll
    for (int i = 0; i <= SMALL; ++i)
      if (i <= g.n) r[i] = at(x0, x1, x2, &g, b0, b1, b2, k + i);
#pragma unroll
    for (int len = SMALL; len > 0; --len)
      if (len <= g.n)
#pragma unroll
        for (int i = 0; i < len; ++i) r[i] = diff_step(r[i + 1], r[i]);
    out[o] = elem_store(r[0]);
    return;
  }
  W w[MAX_ORDER + 1];
  for (long i = 0; i <= g.n; ++i) w[i] = at(x0, x1, x2, &g, b0, b1, b2, k + i);
  for (long len = g.n; len > 0; --len)
    for (long i = 0; i < len; ++i) w[i] = diff_step(w[i + 1], w[i]);
  out[o] = elem_store(w[0]);
}
)CLC";

struct Geometry {
  cl_long size[8], so[8], s[3][8];
  cl_long start1, start2;
  cl_long n, count;
  cl_int rank, dim, pieces;
};

bool same_other_sizes(const kgb_tensor* a, const kgb_tensor* b, int dim) {
  if (a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; ++d)
    if (d != dim && a->sizes[d] != b->sizes[d]) return false;
  return true;
}

bool supported(int32_t t) {
  return t == KGB_F32 || t == KGB_F64 || t == KGB_F16 || t == KGB_BF16 || t == KGB_I32 || t == KGB_I64 || t == KGB_BOOL;
}

}  // namespace

extern "C" int kgb_aten_diff(const kgb_tensor* self, int64_t n, int64_t dim, const kgb_tensor* prepend,
                             const kgb_tensor* append, kgb_tensor* out, kgb_stream stream) {
  if (!supported(self->dtype)) return KGB_ERR_UNSUPPORTED;
  const int rank = self->rank;
  if (rank < 1 || n < 0) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return KGB_ERR_INVALID;
  Geometry g{};
  g.rank = rank;
  g.dim = static_cast<cl_int>(dim);
  // The pieces that hold positions, in joined order (n == 0 copies self: ATen ignores prepend and append).
  const kgb_tensor* parts[3] = {n > 0 ? prepend : nullptr, self, n > 0 ? append : nullptr};
  const kgb_tensor* pieces[3] = {self, self, self};  // unused slots: a stand-in buffer
  cl_long starts[3] = {0, 0, 0}, joined = 0;
  for (const kgb_tensor* t : parts) {
    if (!t) continue;
    if (t->dtype != self->dtype || !same_other_sizes(t, self, g.dim)) return KGB_ERR_INVALID;
    if (t->sizes[dim] > 0) {
      starts[g.pieces] = joined;
      pieces[g.pieces++] = t;
    }
    joined += t->sizes[dim];
  }
  g.n = n < joined ? n : joined;
  if (out->dtype != self->dtype || !same_other_sizes(out, self, g.dim) || out->sizes[dim] != joined - g.n)
    return KGB_ERR_INVALID;
  g.count = kgb_numel(out);
  if (g.count == 0) return KGB_OK;
  if (g.n > kMaxOrder) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  g.start1 = starts[1];
  g.start2 = starts[2];
  for (int d = 0; d < 8; ++d) {
    g.size[d] = d < rank ? out->sizes[d] : 1;
    g.so[d] = d < rank ? out->strides[d] : 0;
    for (int p = 0; p < 3; ++p) g.s[p][d] = d < rank ? pieces[p]->strides[d] : 0;
  }
  char options[64];
  snprintf(options, sizeof options, "-cl-std=CL1.2 -DDT=%d", self->dtype);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "diff", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, pieces[0]);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, pieces[1]);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, pieces[2]);
  err |= kgb_cl_set_tensor_arg(stream, k, 6, out);
  err |= clSetKernelArg(k, 8, sizeof g, &g);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = 256;
  const size_t global = (static_cast<size_t>(g.count) + local - 1) / local * local;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
