// aten/gather in OpenCL: out[p] = self[p with coordinate dim := index[p]].
// A bitwise copy, so the program is built per element size (uchar, ushort,
// uint, ulong). A 2-D range: dimension 0 runs along the last dimension of
// index/out (neighbouring work-items read neighbouring indices and write
// neighbouring out elements), dimension 1 over the rows (all other
// dimensions), whose offsets each work-item resolves once. Index values
// outside [0, size(self, dim)) are never dereferenced and leave their out
// element unwritten (reporting them would need a read-back on every call).
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 128;

const char kSource[] = R"CLC(
#ifndef ELEM
#define ELEM 4
#endif
#if ELEM == 1
typedef uchar E;
#elif ELEM == 2
typedef ushort E;
#elif ELEM == 4
typedef uint E;
#else
typedef ulong E;
#endif

// The row dimensions (all but the last of index): sizes and strides in
// self (0 at dim), index and out.
typedef struct {
  long size[8]; long ss[8]; long is[8]; long os[8];
} Rows;

__kernel void gather(__global E* out, long o_off, __global const E* self, long s_off, __global const long* index,
                     long i_off, Rows g, int row_rank, long L, long rows, long len, long dim_step, long last_self,
                     long last_index, long last_out) {
  long j = get_global_id(0), row = get_global_id(1);
  if (j >= L || row >= rows) return;
  long so = s_off, io = i_off, oo = o_off;
  for (int d = row_rank - 1; d >= 0; --d) {
    long q = row / g.size[d], c = row - q * g.size[d];
    row = q;
    so += c * g.ss[d];
    io += c * g.is[d];
    oo += c * g.os[d];
  }
  long v = index[io + j * last_index];
  if ((ulong)v < (ulong)len) out[oo + j * last_out] = self[so + j * last_self + v * dim_step];
}
)CLC";

struct Rows {
  cl_long size[8], ss[8], is[8], os[8];
};

const char* build_options(int32_t dtype) {
  switch (kgb_dtype_size(dtype)) {
    case 1: return "-cl-std=CL1.2 -DELEM=1";
    case 2: return "-cl-std=CL1.2 -DELEM=2";
    case 4: return "-cl-std=CL1.2 -DELEM=4";
    case 8: return "-cl-std=CL1.2 -DELEM=8";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_aten_gather(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_tensor* out,
                               kgb_stream stream) {
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I8: case KGB_U8: case KGB_I16: case KGB_I32:
    case KGB_I64: case KGB_BOOL:
      break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (out->dtype != self->dtype || index->dtype != KGB_I64) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if (index->rank != rank || out->rank != rank) return KGB_ERR_INVALID;
  const int nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;

  Rows g{};
  int row_rank = 0;
  cl_long L = 1, rows = 1, len = 1, dim_step = 0, last_self = 0, last_index = 0, last_out = 0;
  for (int d = 0; d < rank; ++d) {
    if (out->sizes[d] != index->sizes[d]) return KGB_ERR_INVALID;
    if (d != dim && index->sizes[d] > self->sizes[d]) return KGB_ERR_INVALID;
    const cl_long ss = d == dim ? 0 : self->strides[d];
    if (d == rank - 1) {
      L = index->sizes[d];
      last_self = ss;
      last_index = index->strides[d];
      last_out = out->strides[d];
    } else {
      g.size[row_rank] = index->sizes[d];
      g.ss[row_rank] = ss;
      g.is[row_rank] = index->strides[d];
      g.os[row_rank] = out->strides[d];
      rows *= index->sizes[d];
      ++row_rank;
    }
  }
  if (rank > 0) {
    len = self->sizes[dim];
    dim_step = self->strides[dim];
  }
  if (rows == 0 || L == 0) return KGB_OK;

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, build_options(self->dtype), "gather", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, index);
  err |= clSetKernelArg(k, 6, sizeof g, &g);
  err |= clSetKernelArg(k, 7, sizeof row_rank, &row_rank);
  err |= clSetKernelArg(k, 8, sizeof L, &L);
  err |= clSetKernelArg(k, 9, sizeof rows, &rows);
  err |= clSetKernelArg(k, 10, sizeof len, &len);
  err |= clSetKernelArg(k, 11, sizeof dim_step, &dim_step);
  err |= clSetKernelArg(k, 12, sizeof last_self, &last_self);
  err |= clSetKernelArg(k, 13, sizeof last_index, &last_index);
  err |= clSetKernelArg(k, 14, sizeof last_out, &last_out);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  // Groups of 128 work-items: along a row as far as it reaches (the row
  // length rounded up to a power of two, so a group covers whole short rows
  // and little of the range idles), the rest across rows.
  size_t along = 1;
  while (along < kGroup && along < static_cast<size_t>(L)) along *= 2;
  const size_t local[2] = {along, kGroup / along};
  const size_t global[2] = {(static_cast<size_t>(L) + local[0] - 1) / local[0] * local[0],
                            (static_cast<size_t>(rows) + local[1] - 1) / local[1] * local[1]};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
