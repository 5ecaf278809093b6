// aten/select_backward in OpenCL: out = 0 everywhere, then the slice at
// `index` along `dim` gets grad_output. One fused pass: every work-item
// writes one element of the out view, the grad value when its coordinate
// along dim is `index`, else zero (the all-zero pattern in every float
// format, so the program is built per element size: ushort, uint, ulong).
// A 2-D range: dimension 0 runs along out's last dimension (neighbouring
// work-items write neighbouring elements), dimension 1 over the rows, whose
// offsets each work-item resolves once.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 128;

const char kSource[] = R"CLC(
#ifndef ELEM
#define ELEM 4
#endif
#if ELEM == 2
typedef ushort E;
#elif ELEM == 4
typedef uint E;
#else
typedef ulong E;
#endif

// The row dimensions (all but out's last): sizes, strides in out and in
// grad_output (0 at dim).
typedef struct {
  long size[8]; long os[8]; long gs[8];
} Rows;

__kernel void select_backward(__global E* out, long o_off, __global const E* grad, long g_off, Rows r, int row_rank,
                              long L, long rows, int dim, long index, long last_out, long last_grad) {
  long j = get_global_id(0), row = get_global_id(1);
  if (j >= L || row >= rows) return;
  long oo = o_off + j * last_out, go = g_off + j * last_grad;
  int selected = dim == row_rank ? j == index : 1;
  for (int d = row_rank - 1; d >= 0; --d) {
    long q = row / r.size[d], c = row - q * r.size[d];
    row = q;
    oo += c * r.os[d];
    go += c * r.gs[d];
    if (d == dim) selected = c == index;
  }
  out[oo] = selected ? grad[go] : (E)0;
}
)CLC";

struct Rows {
  cl_long size[8], os[8], gs[8];
};

const char* build_options(int32_t dtype) {
  switch (dtype) {
    case KGB_F16: case KGB_BF16: return "-cl-std=CL1.2 -DELEM=2";
    case KGB_F32: return "-cl-std=CL1.2 -DELEM=4";
    case KGB_F64: return "-cl-std=CL1.2 -DELEM=8";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_aten_select_backward(const kgb_tensor* grad_output, kgb_int_list input_sizes, int64_t dim,
                                        int64_t index, kgb_tensor* out, kgb_stream stream) {
  const char* options = build_options(out->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  const int rank = static_cast<int>(input_sizes.count);
  if (rank < 1 || out->rank != rank || grad_output->rank != rank - 1 || out->dtype != grad_output->dtype)
    return KGB_ERR_INVALID;
  if (dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int d = static_cast<int>(dim);
  const int64_t size = input_sizes.values[d];
  if (index < -size || index >= size) return KGB_ERR_INVALID;
  if (index < 0) index += size;
  Rows r{};
  const int row_rank = rank - 1;
  cl_long rows = 1;
  for (int k = 0; k < rank; ++k) {
    if (out->sizes[k] != input_sizes.values[k]) return KGB_ERR_INVALID;
    if (k != d && grad_output->sizes[k < d ? k : k - 1] != out->sizes[k]) return KGB_ERR_INVALID;
    if (k == row_rank) break;
    r.size[k] = out->sizes[k];
    r.os[k] = out->strides[k];
    r.gs[k] = k == d ? 0 : grad_output->strides[k < d ? k : k - 1];
    rows *= out->sizes[k];
  }
  const cl_long L = out->sizes[row_rank], last_out = out->strides[row_rank];
  const cl_long last_grad = d == row_rank ? 0 : grad_output->strides[row_rank - 1];
  const cl_long idx = index;
  if (rows == 0 || L == 0) return KGB_OK;

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "select_backward", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, grad_output);
  err |= clSetKernelArg(k, 4, sizeof r, &r);
  err |= clSetKernelArg(k, 5, sizeof row_rank, &row_rank);
  err |= clSetKernelArg(k, 6, sizeof L, &L);
  err |= clSetKernelArg(k, 7, sizeof rows, &rows);
  err |= clSetKernelArg(k, 8, sizeof d, &d);
  err |= clSetKernelArg(k, 9, sizeof idx, &idx);
  err |= clSetKernelArg(k, 10, sizeof last_out, &last_out);
  err |= clSetKernelArg(k, 11, sizeof last_grad, &last_grad);
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
