// aten/_index_put_impl_ in OpenCL: index_put_ plus the `unsafe` flag, which
// only lets ATen skip its index checks (valid indices give the same result).
//
// The host works out the geometry without reading any index: the broadcast
// index shape B, the element offset of each present index item inside the
// list's one buffer (kgb_cl_tensor_list_buffers / kgb_cl_tensor_buffer), and
// the other dims of self (None items and trailing dims) merged where self and
// values are contiguous across them. All of it travels by value in one
// kernel argument (816 bytes, inside the 1024 bytes every OpenCL 1.2 device
// accepts), so nothing is allocated per call.
//
// Without accumulate the targets are distinct: one work-item per (b, q)
// element, q (the other dims) fastest so neighbouring work-items move
// neighbouring elements of a row. With accumulate a target may repeat, and
// OpenCL 1.2 has no atomic add for floats, halves or 64-bit types: one
// work-item per position q of the other dims walks all of B in order, so
// every element's sums happen in one work-item, deterministically.
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr int kMax = 8;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifdef USE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef T  // set by the build options; the default lets tools parse the program
#define T float
#endif
#ifndef ADD
#define ADD(a, b) (b)
#endif
typedef struct {
  long nb, nq, self_off, val_off;
  long item_off[8], item_size[8], item_stride[8];
  long bsize[8], bval[8];
  long osize[8], oself[8], oval[8];
  int bstride[64];  // per present item, its stride along each dim of B (0: broadcast)
  int np, rb, no, unused;
} G;

// Target offset in self and offset in values of position b of B.
void at_b(const G* g, __global const long* idx, long b, long* target, long* vb) {
  long bi[8];
  for (int d = g->rb - 1; d >= 0; --d) {
    long q = b / g->bsize[d];
    bi[d] = b - q * g->bsize[d];
    b = q;
  }
  long t = 0, v = 0;
  for (int d = 0; d < g->rb; ++d) v += bi[d] * g->bval[d];
  for (int k = 0; k < g->np; ++k) {
    long at = g->item_off[k];
    for (int d = 0; d < g->rb; ++d) at += bi[d] * g->bstride[k * 8 + d];
    long i = idx[at];
    if (i < 0) i += g->item_size[k];
    t += i * g->item_stride[k];
  }
  *target = t;
  *vb = v;
}

// Offsets in self and values of position q of the other dims.
void at_q(const G* g, long q, long* s, long* v) {
  long a = 0, c = 0;
  for (int d = g->no - 1; d >= 0; --d) {
    long n = q / g->osize[d], r = q - n * g->osize[d];
    q = n;
    a += r * g->oself[d];
    c += r * g->oval[d];
  }
  *s = a;
  *v = c;
}

__kernel void put(__global T* self, __global const T* values, __global const long* idx, G g) {
  const long i = get_global_id(0);
  if (i >= g.nb * g.nq) return;
  const long b = i / g.nq, q = i - b * g.nq;
  long t, vb, s, v;
  at_b(&g, idx, b, &t, &vb);
  at_q(&g, q, &s, &v);
  self[g.self_off + t + s] = values[g.val_off + vb + v];
}

__kernel void acc(__global T* self, __global const T* values, __global const long* idx, G g) {
  const long q = get_global_id(0);
  if (q >= g.nq) return;
  long s, v;
  at_q(&g, q, &s, &v);
  __global T* base = self + g.self_off + s;
  __global const T* vals = values + g.val_off + v;
  for (long b = 0; b < g.nb; ++b) {
    long t, vb;
    at_b(&g, idx, b, &t, &vb);
    base[t] = ADD(base[t], vals[vb]);
  }
}
)CLC";

struct G {
  cl_long nb, nq, self_off, val_off;
  cl_long item_off[kMax], item_size[kMax], item_stride[kMax];
  cl_long bsize[kMax], bval[kMax];
  cl_long osize[kMax], oself[kMax], oval[kMax];
  cl_int bstride[kMax * kMax];
  cl_int np, rb, no, unused;
};
static_assert(sizeof(G) == 816, "G must match the OpenCL C struct");

// Build options: element type T and, for accumulate, ADD(old, value).
const char* options_for(int32_t dtype, bool accumulate) {
  if (!accumulate) {
    switch (kgb_dtype_size(dtype)) {
      case 1: return "-cl-std=CL1.2 -DT=uchar";
      case 2: return "-cl-std=CL1.2 -DT=ushort";
      case 4: return "-cl-std=CL1.2 -DT=uint";
      default: return "-cl-std=CL1.2 -DT=ulong";
    }
  }
  switch (dtype) {
    case KGB_F32: return "-cl-std=CL1.2 -DT=float -DADD(a,b)=((a)+(b))";
    case KGB_F64: return "-cl-std=CL1.2 -DUSE_FP64 -DT=double -DADD(a,b)=((a)+(b))";
    case KGB_F16: return "-cl-std=CL1.2 -DT=ushort -DADD(a,b)=kgb_float_to_f16(kgb_f16_to_float(a)+kgb_f16_to_float(b))";
    case KGB_BF16: return "-cl-std=CL1.2 -DT=ushort -DADD(a,b)=kgb_float_to_bf16(kgb_bf16_to_float(a)+kgb_bf16_to_float(b))";
    case KGB_I64: return "-cl-std=CL1.2 -DT=long -DADD(a,b)=as_long(as_ulong(a)+as_ulong(b))";
    default: return "-cl-std=CL1.2 -DT=uchar -DADD(a,b)=(uchar)(((a)|(b))!=0)";
  }
}

}  // namespace

extern "C" int kgb_aten__index_put_impl_(kgb_tensor* self, const kgb_tensor_list* indices, const kgb_tensor* values,
                                         int accumulate, int unsafe, kgb_stream stream) {
  (void)unsafe;  // the result of valid indices does not depend on it
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (values->dtype != self->dtype) return KGB_ERR_INVALID;
  if (accumulate && self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const int rank = self->rank;
  const int64_t count = indices->count;
  if (count < 1 || count > rank) return KGB_ERR_INVALID;

  G g{};
  cl_mem storage = nullptr, offsets = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, indices, &storage, &offsets) != CL_SUCCESS) return KGB_ERR_INVALID;
  int present[kMax];
  for (int k = 0; k < count; ++k) {
    const kgb_tensor* t = indices->items[k];
    if (!t) continue;
    if (t->dtype != KGB_I64) return KGB_ERR_INVALID;
    cl_mem buffer = nullptr;
    cl_long off = 0;
    if (kgb_cl_tensor_buffer(stream, t, &buffer, &off) != CL_SUCCESS || buffer != storage) return KGB_ERR_INVALID;
    present[g.np] = k;
    g.item_off[g.np] = off;
    g.item_size[g.np] = self->sizes[k];
    g.item_stride[g.np] = self->strides[k];
    ++g.np;
    if (t->rank > g.rb) g.rb = t->rank;
  }
  if (g.np == 0) return KGB_ERR_INVALID;
  // B: right-aligned broadcast of the present items, and their strides along it.
  for (int d = 0; d < g.rb; ++d) g.bsize[d] = 1;
  for (int i = 0; i < g.np; ++i) {
    const kgb_tensor* t = indices->items[present[i]];
    for (int d = 0; d < t->rank; ++d) {
      const int at = g.rb - t->rank + d;
      if (t->sizes[d] != 1) {
        if (g.bsize[at] != 1 && g.bsize[at] != t->sizes[d]) return KGB_ERR_INVALID;
        g.bsize[at] = t->sizes[d];
        if (t->strides[d] > INT32_MAX || t->strides[d] < INT32_MIN) return KGB_ERR_UNSUPPORTED;
        g.bstride[i * kMax + at] = static_cast<cl_int>(t->strides[d]);
      }
    }
  }
  g.nb = 1;
  for (int d = 0; d < g.rb; ++d) g.nb *= g.bsize[d];

  // The other dims; where B sits among them in the indexed result (values' view).
  const bool adjacent = present[g.np - 1] - present[0] + 1 == g.np;
  int other[kMax], no = 0, before = 0;
  for (int d = 0; d < rank; ++d)
    if (d >= count || !indices->items[d]) {
      other[no++] = d;
      if (adjacent && d < present[0]) ++before;
    }
  const int rr = no + g.rb;
  if (values->rank > rr) return KGB_ERR_INVALID;
  int64_t rsize[2 * kMax], vstride[2 * kMax] = {};
  for (int i = 0; i < before; ++i) rsize[i] = self->sizes[other[i]];
  for (int d = 0; d < g.rb; ++d) rsize[before + d] = g.bsize[d];
  for (int i = before; i < no; ++i) rsize[i + g.rb] = self->sizes[other[i]];
  for (int d = 0; d < values->rank; ++d) {
    const int r = rr - values->rank + d;
    if (values->sizes[d] == rsize[r]) vstride[r] = values->strides[d];
    else if (values->sizes[d] != 1) return KGB_ERR_INVALID;
  }
  for (int d = 0; d < g.rb; ++d) g.bval[d] = vstride[before + d];
  g.nq = 1;
  for (int i = 0; i < no; ++i) {
    const int r = i < before ? i : i + g.rb;
    const cl_long size = self->sizes[other[i]], s = self->strides[other[i]], v = vstride[r];
    g.nq *= size;
    if (size == 1) continue;
    if (g.no > 0 && g.oself[g.no - 1] == s * size && g.oval[g.no - 1] == v * size) {
      g.osize[g.no - 1] *= size;
      g.oself[g.no - 1] = s;
      g.oval[g.no - 1] = v;
      continue;
    }
    g.osize[g.no] = size;
    g.oself[g.no] = s;
    g.oval[g.no] = v;
    ++g.no;
  }
  if (g.nb == 0 || g.nq == 0) return KGB_OK;

  cl_mem self_buffer = nullptr, values_buffer = nullptr;
  if (kgb_cl_tensor_buffer(stream, self, &self_buffer, &g.self_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (kgb_cl_tensor_buffer(stream, values, &values_buffer, &g.val_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_kernel kernel = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options_for(self->dtype, accumulate != 0), accumulate ? "acc" : "put", &kernel) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(kernel, 0, sizeof self_buffer, &self_buffer);
  err |= clSetKernelArg(kernel, 1, sizeof values_buffer, &values_buffer);
  err |= clSetKernelArg(kernel, 2, sizeof storage, &storage);
  err |= clSetKernelArg(kernel, 3, sizeof g, &g);
  const size_t local = 128;
  const size_t work = static_cast<size_t>(accumulate ? g.nq : g.nb * g.nq);
  const size_t global = (work + local - 1) / local * local;
  err |= kgb_cl_enqueue(stream, kernel, 1, &global, &local);
  return err == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
