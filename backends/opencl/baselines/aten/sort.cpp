// aten/sort, plain OpenCL baseline: one work-item sorts one slice with a
// bottom-up merge sort of (key, index) pairs in a scratch buffer.
#include "../plain_common.h"
#include "kgb_entries/aten/sort.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
// Orders numbers with NaN above everything; -0.0 equals +0.0.
ulong key_of(S v, int descending) {
#if KGB_DT == 2 || KGB_DT == 3
  ulong k = (ulong)((long)v) ^ 0x8000000000000000UL;
#else
  double x = (double)LOAD(v);
  ulong k;
  if (isnan(x)) {
    k = 0xFFFFFFFFFFFFFFFFUL;
  } else {
    ulong u = x == 0.0 ? 0UL : as_ulong(x);
    k = (u >> 63) ? ~u : (u | 0x8000000000000000UL);
  }
#endif
  return descending ? ~k : k;
}
bool before(ulong ka, long ia, ulong kb, long ib) { return ka < kb || (ka == kb && ia < ib); }

__kernel void sort_slices(__global S* v, long vo, __global long* ix, long io, __global const S* x, long xo, Dims g,
                          int rank, long slices, long len, long xs, long vs, long is, int descending,
                          __global ulong* keys, __global long* order) {
  long s = get_global_id(0);
  if (s >= slices) return;
  long a, b, c, d;
  offsets(&g, rank, s, &a, &b, &c, &d);
  __global ulong* k0 = keys + s * 2 * len;
  __global ulong* k1 = k0 + len;
  __global long* p0 = order + s * 2 * len;
  __global long* p1 = p0 + len;
  for (long e = 0; e < len; ++e) {
    k0[e] = key_of(x[xo + a + e * xs], descending);
    p0[e] = e;
  }
  for (long width = 1; width < len; width *= 2) {
    for (long lo = 0; lo < len; lo += 2 * width) {
      long mid = min(lo + width, len), hi = min(lo + 2 * width, len), i = lo, j = mid;
      for (long out = lo; out < hi; ++out) {
        bool left = i < mid && (j >= hi || !before(k0[j], p0[j], k0[i], p0[i]));
        k1[out] = left ? k0[i] : k0[j];
        p1[out] = left ? p0[i] : p0[j];
        if (left) ++i; else ++j;
      }
    }
    __global ulong* tk = k0; k0 = k1; k1 = tk;
    __global long* tp = p0; p0 = p1; p1 = tp;
  }
  for (long e = 0; e < len; ++e) {
    v[vo + b + e * vs] = x[xo + a + p0[e] * xs];
    ix[io + c + e * is] = p0[e];
  }
}
)CLC";

int sort(const kgb_tensor* self, int64_t dim_arg, int descending, kgb_tensor* values, kgb_tensor* indices, kgb_stream stream) {
  const int64_t dim = normalise_dim(dim_arg, self->rank);
  Dims g;
  for (int d = 0; d < self->rank; ++d)
    if (d != dim) g.add(self->sizes[d], self->strides[d], values->strides[d], indices->strides[d]);
  const cl_long len = self->rank == 0 ? 1 : self->sizes[dim];
  if (g.count == 0 || len == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, dtype_options(self->dtype), "sort_slices");
  if (!k) return KGB_ERR_UNSUPPORTED;
  const size_t scratch = static_cast<size_t>(g.count * 2 * len) * 8;
  cl_int err = CL_SUCCESS;
  cl_mem keys = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, scratch, nullptr, &err);
  cl_mem order = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, scratch, nullptr, &err);
  int status = KGB_ERR_INVALID;
  if (keys && order) {
    Args args{stream, k};
    args.tensor(values).tensor(indices).tensor(self).dims(g).value(g.count).value(len);
    args.value(static_cast<cl_long>(self->rank ? self->strides[dim] : 0));
    args.value(static_cast<cl_long>(self->rank ? values->strides[dim] : 0));
    args.value(static_cast<cl_long>(self->rank ? indices->strides[dim] : 0));
    args.value(static_cast<cl_int>(descending != 0)).value(keys).value(order);
    if (args.error == CL_SUCCESS) status = launch(stream, k, g.count);
  }
  if (keys) clReleaseMemObject(keys);
  if (order) clReleaseMemObject(order);
  return status;
}

}  // namespace
KGB_BASELINE(aten_sort, kKind, sort);
}  // namespace kgb::opencl::plain
