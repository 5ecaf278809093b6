// aten/diff, plain OpenCL baseline: one work-item per element of out; the
// work-item walks the n + 1 joined elements of its window (prepend, self,
// append along dim) and applies the n difference steps to them, each rounded
// to the dtype (16-bit floats after every step, as ATen's separate
// subtractions round), integers wrapping, bool steps a != b. No unrolling,
// no folding: a straightforward port of the definition.
#include <cstdio>

#include "../plain_common.h"
#include "kgb_entries/aten/diff.h"
#include "kgb_half.h"

namespace kgb::opencl::plain {
namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
/* S: storage, C: computation (long for integers and bool). */
#if KGB_DT == 6
typedef float S; typedef float C;
#elif KGB_DT == 7
typedef double S; typedef double C;
#elif KGB_DT == 4 || KGB_DT == 5
typedef ushort S; typedef float C;
#elif KGB_DT == 2
typedef int S; typedef long C;
#elif KGB_DT == 3
typedef long S; typedef long C;
#else
typedef uchar S; typedef long C;
#endif
C rd(__global const S* x, long i) {
#if KGB_DT == 4
  return kgb_f16_to_float(x[i]);
#elif KGB_DT == 5
  return kgb_bf16_to_float(x[i]);
#elif KGB_DT == 0
  return x[i] != 0;
#else
  return (C)x[i];
#endif
}
S wr(C v) {
#if KGB_DT == 4
  return kgb_float_to_f16(v);
#elif KGB_DT == 5
  return kgb_float_to_bf16(v);
#else
  return (S)v;
#endif
}
C sub1(C a, C b) {
#if KGB_DT == 0
  return a != b;
#elif KGB_DT == 4
  return kgb_f16_to_float(kgb_float_to_f16(a - b));
#elif KGB_DT == 5
  return kgb_bf16_to_float(kgb_float_to_bf16(a - b));
#elif KGB_DT == 2
  return as_int((uint)a - (uint)b);
#elif KGB_DT == 3
  return as_long(as_ulong(a) - as_ulong(b));
#else
  return a - b;
#endif
}
typedef struct { long size[8]; long so[8]; long s0[8]; long s1[8]; long s2[8]; long start1, start2, n, count; int rank, dim, pieces; } G;
__kernel void diff(__global const S* x0, long o0, __global const S* x1, long o1, __global const S* x2, long o2,
                   __global S* out, long oo, G g) {
  long e = get_global_id(0);
  if (e >= g.count) return;
  long rest = e, o = oo, k = 0, b0 = o0, b1 = o1, b2 = o2;
  for (int d = g.rank - 1; d >= 0; --d) {
    long q = rest / g.size[d], i = rest - q * g.size[d];
    rest = q;
    o += i * g.so[d];
    if (d == g.dim) k = i; else { b0 += i * g.s0[d]; b1 += i * g.s1[d]; b2 += i * g.s2[d]; }
  }
  C w[33];
  for (long i = 0; i <= g.n; ++i) {
    long p = k + i;
    if (g.pieces > 2 && p >= g.start2) w[i] = rd(x2, b2 + (p - g.start2) * g.s2[g.dim]);
    else if (g.pieces > 1 && p >= g.start1) w[i] = rd(x1, b1 + (p - g.start1) * g.s1[g.dim]);
    else w[i] = rd(x0, b0 + p * g.s0[g.dim]);
  }
  for (long len = g.n; len > 0; --len)
    for (long i = 0; i < len; ++i) w[i] = sub1(w[i + 1], w[i]);
  out[o] = wr(w[0]);
}
)CLC";

struct G {
  cl_long size[8], so[8], s[3][8];
  cl_long start1, start2, n, count;
  cl_int rank, dim, pieces;
};

int diff(const kgb_tensor* self, int64_t n, int64_t dim, const kgb_tensor* prepend, const kgb_tensor* append,
         kgb_tensor* out, kgb_stream stream) {
  const int rank = self->rank;
  if (rank < 1 || n < 0 || out->dtype != self->dtype) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return KGB_ERR_INVALID;
  G g{};
  g.rank = rank;
  g.dim = static_cast<cl_int>(dim);
  const kgb_tensor* parts[3] = {n > 0 ? prepend : nullptr, self, n > 0 ? append : nullptr};
  const kgb_tensor* pieces[3] = {self, self, self};
  cl_long starts[3] = {0, 0, 0}, joined = 0;
  for (const kgb_tensor* t : parts) {
    if (!t) continue;
    if (t->sizes[dim] > 0) {
      starts[g.pieces] = joined;
      pieces[g.pieces++] = t;
    }
    joined += t->sizes[dim];
  }
  g.n = n < joined ? n : joined;
  if (out->sizes[dim] != joined - g.n) return KGB_ERR_INVALID;
  g.count = kgb_numel(out);
  if (g.count == 0) return KGB_OK;
  if (g.n > 32) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  g.start1 = starts[1];
  g.start2 = starts[2];
  for (int d = 0; d < 8; ++d) {
    g.size[d] = d < rank ? out->sizes[d] : 1;
    g.so[d] = d < rank ? out->strides[d] : 0;
    for (int p = 0; p < 3; ++p) g.s[p][d] = d < rank ? pieces[p]->strides[d] : 0;
  }
  char options[48];
  std::snprintf(options, sizeof options, "-cl-std=CL1.2 -DKGB_DT=%d", self->dtype);
  cl_kernel k = kernel(stream, kSource, options, "diff");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(pieces[0]).tensor(pieces[1]).tensor(pieces[2]).tensor(out).value(g);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, k, g.count);
}

}  // namespace
KGB_BASELINE(aten_diff, kKind, diff);
}  // namespace kgb::opencl::plain
