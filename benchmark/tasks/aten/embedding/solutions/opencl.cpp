// aten/embedding (forward) in OpenCL: out[p, :] = weight[indices[p], :].
// A row copy, so the program is built per element size (ushort, uint, ulong)
// and index type (int, long). A 2-D range: dimension 0 runs along the row
// (neighbouring work-items copy neighbouring features: coalesced reads of the
// weight row and writes of the out row), dimension 1 over the lookups, whose
// index and out-row offsets each work-item resolves once. Index values outside
// [0, V) are never dereferenced and leave their out row unwritten (reporting
// them would need a read-back on every call).
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 128;

const char kSource[] = R"CLC(
#ifndef ELEM
#define ELEM 4
#endif
#ifndef IDX
#define IDX long
#endif
#if ELEM == 2
typedef ushort E;
#elif ELEM == 4
typedef uint E;
#else
typedef ulong E;
#endif

// The dimensions of indices: sizes, strides in indices and in out.
typedef struct {
  long size[8]; long is[8]; long os[8];
} Lookups;

__kernel void embedding(__global E* out, long o_off, __global const E* weight, long w_off, __global const IDX* indices,
                        long i_off, Lookups g, int irank, long width, long lookups, long rows, long w_row, long w_col,
                        long o_col) {
  long j = get_global_id(0), p = get_global_id(1);
  if (j >= width || p >= lookups) return;
  long io = i_off, oo = o_off;
  for (int d = irank - 1; d >= 0; --d) {
    long q = p / g.size[d], c = p - q * g.size[d];
    p = q;
    io += c * g.is[d];
    oo += c * g.os[d];
  }
  long row = (long)indices[io];
  if (row >= 0 && row < rows) out[oo + j * o_col] = weight[w_off + row * w_row + j * w_col];
}
)CLC";

struct Lookups {
  cl_long size[8], is[8], os[8];
};

const char* build_options(int32_t dtype, int32_t index_dtype) {
  const bool wide = index_dtype == KGB_I64;
  switch (kgb_dtype_size(dtype)) {
    case 2: return wide ? "-cl-std=CL1.2 -DELEM=2 -DIDX=long" : "-cl-std=CL1.2 -DELEM=2 -DIDX=int";
    case 4: return wide ? "-cl-std=CL1.2 -DELEM=4 -DIDX=long" : "-cl-std=CL1.2 -DELEM=4 -DIDX=int";
    case 8: return wide ? "-cl-std=CL1.2 -DELEM=8 -DIDX=long" : "-cl-std=CL1.2 -DELEM=8 -DIDX=int";
    default: return nullptr;
  }
}

}  // namespace

extern "C" int kgb_aten_embedding(const kgb_tensor* weight, const kgb_tensor* indices, int64_t padding_idx,
                                  kgb_tensor* out, kgb_stream stream) {
  (void)padding_idx;  // only affects the gradient
  switch (weight->dtype) {
    case KGB_F16: case KGB_BF16: case KGB_F32: case KGB_F64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (weight->rank != 2 || out->dtype != weight->dtype || out->rank != indices->rank + 1) return KGB_ERR_INVALID;
  if (indices->dtype != KGB_I32 && indices->dtype != KGB_I64) return KGB_ERR_INVALID;
  Lookups g{};
  const int irank = indices->rank;
  cl_long lookups = 1;
  for (int d = 0; d < irank; ++d) {
    if (out->sizes[d] != indices->sizes[d]) return KGB_ERR_INVALID;
    g.size[d] = indices->sizes[d];
    g.is[d] = indices->strides[d];
    g.os[d] = out->strides[d];
    lookups *= indices->sizes[d];
  }
  const cl_long width = weight->sizes[1], rows = weight->sizes[0];
  if (out->sizes[irank] != width) return KGB_ERR_INVALID;
  const cl_long w_row = weight->strides[0], w_col = weight->strides[1], o_col = out->strides[irank];
  if (lookups == 0 || width == 0) return KGB_OK;

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, build_options(weight->dtype, indices->dtype), "embedding", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, weight);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, indices);
  err |= clSetKernelArg(k, 6, sizeof g, &g);
  err |= clSetKernelArg(k, 7, sizeof irank, &irank);
  err |= clSetKernelArg(k, 8, sizeof width, &width);
  err |= clSetKernelArg(k, 9, sizeof lookups, &lookups);
  err |= clSetKernelArg(k, 10, sizeof rows, &rows);
  err |= clSetKernelArg(k, 11, sizeof w_row, &w_row);
  err |= clSetKernelArg(k, 12, sizeof w_col, &w_col);
  err |= clSetKernelArg(k, 13, sizeof o_col, &o_col);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  // Groups of 128 work-items: along a row as far as it reaches (the row
  // length rounded up to a power of two, so a group covers whole short rows
  // and little of the range idles), the rest across lookups.
  size_t along = 1;
  while (along < kGroup && along < static_cast<size_t>(width)) along *= 2;
  const size_t local[2] = {along, kGroup / along};
  const size_t global[2] = {(static_cast<size_t>(width) + local[0] - 1) / local[0] * local[0],
                            (static_cast<size_t>(lookups) + local[1] - 1) / local[1] * local[1]};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
