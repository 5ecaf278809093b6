// aten/index_select in OpenCL: out[..., k, ...] = self[..., index[k], ...].
// A bitwise copy, so the program is built per element size (uchar, ushort,
// uint, ulong). A 2-D range: dimension 0 runs over the out elements after
// `dim` (merged into one when contiguous, so neighbouring work-items copy
// neighbouring elements for dim = 0 gathers), dimension 1 over the rows
// (outer index x k). Each work-item reads index[k] once.
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

// Dimensions before dim (outer) and after it (inner), each with sizes and
// strides in self (s) and out (o).
typedef struct {
  long osize[8]; long oss[8]; long oso[8];
  long isize[8]; long iss[8]; long iso[8];
} Geometry;

__kernel void gather(__global E* out, long o_off, __global const E* self, long s_off, __global const long* index,
                     long x_off, long x_step, Geometry g, int outer_rank, int inner_rank, long inner, long rows,
                     long k_count, long self_dim_step, long out_dim_step) {
  long j = get_global_id(0), row = get_global_id(1);
  if (j >= inner || row >= rows) return;
  long k = row % k_count, o = row / k_count;
  long so = s_off + index[x_off + k * x_step] * self_dim_step, oo = o_off + k * out_dim_step;
  for (int d = outer_rank - 1; d >= 0; --d) {
    long q = o / g.osize[d], i = o - q * g.osize[d];
    o = q;
    so += i * g.oss[d];
    oo += i * g.oso[d];
  }
  for (int d = inner_rank - 1; d >= 0; --d) {
    long q = j / g.isize[d], i = j - q * g.isize[d];
    j = q;
    so += i * g.iss[d];
    oo += i * g.iso[d];
  }
  out[oo] = self[so];
}
)CLC";

struct Geometry {
  cl_long osize[8], oss[8], oso[8];
  cl_long isize[8], iss[8], iso[8];
};

// Appends dimension (size, self stride, out stride) to a row-major list,
// merging it into the previous one when both tensors allow it.
void append(cl_long* size, cl_long* ss, cl_long* so, int& n, cl_long sz, cl_long s, cl_long o) {
  if (sz == 1) return;
  if (n > 0 && ss[n - 1] == s * sz && so[n - 1] == o * sz) {
    size[n - 1] *= sz;
    ss[n - 1] = s;
    so[n - 1] = o;
    return;
  }
  size[n] = sz;
  ss[n] = s;
  so[n] = o;
  ++n;
}

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

extern "C" int kgb_aten_index_select(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_tensor* out,
                                     kgb_stream stream) {
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I8: case KGB_I32: case KGB_I64: case KGB_BOOL:
      break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (out->dtype != self->dtype || index->dtype != KGB_I64 || index->rank > 1) return KGB_ERR_INVALID;
  const int rank = self->rank;
  if (out->rank != rank || rank < 1) return KGB_ERR_INVALID;
  if (dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const cl_long k_count = index->rank == 0 ? 1 : index->sizes[0];
  const cl_long x_step = index->rank == 0 ? 0 : index->strides[0];
  if (out->sizes[dim] != k_count) return KGB_ERR_INVALID;
  Geometry g{};
  int outer_rank = 0, inner_rank = 0;
  cl_long outer = 1, inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (d == dim) continue;
    if (out->sizes[d] != self->sizes[d]) return KGB_ERR_INVALID;
    if (d < dim) {
      outer *= self->sizes[d];
      append(g.osize, g.oss, g.oso, outer_rank, self->sizes[d], self->strides[d], out->strides[d]);
    } else {
      inner *= self->sizes[d];
      append(g.isize, g.iss, g.iso, inner_rank, self->sizes[d], self->strides[d], out->strides[d]);
    }
  }
  const cl_long rows = outer * k_count;
  if (rows == 0 || inner == 0) return KGB_OK;
  const cl_long self_dim_step = self->strides[dim], out_dim_step = out->strides[dim];

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, build_options(self->dtype), "gather", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, self);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, index);
  err |= clSetKernelArg(k, 6, sizeof x_step, &x_step);
  err |= clSetKernelArg(k, 7, sizeof g, &g);
  err |= clSetKernelArg(k, 8, sizeof outer_rank, &outer_rank);
  err |= clSetKernelArg(k, 9, sizeof inner_rank, &inner_rank);
  err |= clSetKernelArg(k, 10, sizeof inner, &inner);
  err |= clSetKernelArg(k, 11, sizeof rows, &rows);
  err |= clSetKernelArg(k, 12, sizeof k_count, &k_count);
  err |= clSetKernelArg(k, 13, sizeof self_dim_step, &self_dim_step);
  err |= clSetKernelArg(k, 14, sizeof out_dim_step, &out_dim_step);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  // Wide rows: 128 x 1 groups; narrow rows (gathers along the last dim): 1 x 128.
  const bool wide = inner >= 64;
  const size_t local[2] = {wide ? kGroup : 1, wide ? 1 : kGroup};
  const size_t global[2] = {(static_cast<size_t>(inner) + local[0] - 1) / local[0] * local[0],
                            (static_cast<size_t>(rows) + local[1] - 1) / local[1] * local[1]};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
