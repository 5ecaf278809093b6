// aten/index (index.Tensor), plain OpenCL baseline: each bool mask is
// compacted by a single work-item walking it in row-major order (the self
// offset of every true element, into a scratch buffer), then one work-item
// per element of out unravels its position into sliced coordinates and the
// position in B, reads the integer indices (wrapping negative ones) and the
// compacted mask offsets, and copies one element. No dimension merging, no
// parallel scan: the straightforward form of the operator.
#include <algorithm>

#include "../plain_common.h"
#include "kgb_entries/aten/index.h"

namespace kgb::opencl::plain {
namespace {

constexpr int kMaxRank = 8;   // dims of self and of out
constexpr int kMaxItems = 4;  // integer items or masks

const std::string kSource = std::string(word_prelude()) + R"CLC(
#ifndef IDX
#define IDX long
#endif
typedef struct {
  long out_size[8], out_stride[8], src_stride[8];  // per out dim: size, stride in out, in self (0 for B dims)
  long item_off[4], item_size[4], item_stride[4];
  long item_b[4][8];  // stride of item k along each out dim (0 outside B and where broadcast)
  long mask_at[4];
  long n;
  int rank, nint, nmask, b_last;  // b_last: the out dim of B's last dim
} Plan;

typedef struct {
  long size[8], stride[8], self_stride[8];
  long at, m;
  int rank, unused;
} Mask;

__kernel void compact(__global const uchar* mask, long mask_off, __global long* scratch, Mask k) {
  long n = 1, j = 0;
  for (int d = 0; d < k.rank; ++d) n *= k.size[d];
  for (long i = 0; i < n && j < k.m; ++i) {
    long rest = i, at = mask_off, so = 0;
    for (int d = k.rank - 1; d >= 0; --d) {
      const long c = rest % k.size[d];
      rest /= k.size[d];
      at += c * k.stride[d];
      so += c * k.self_stride[d];
    }
    if (mask[at]) scratch[k.at + j++] = so;
  }
}

__kernel void gather(__global const E* self, long self_off, __global E* out, long out_off,
                     __global const IDX* idx, __global const long* scratch, Plan p) {
  long i = get_global_id(0);
  if (i >= p.n) return;
  long s = self_off, o = out_off, at[4] = {0, 0, 0, 0}, last = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const long c = i % p.out_size[d];
    i /= p.out_size[d];
    s += c * p.src_stride[d];
    o += c * p.out_stride[d];
    for (int k = 0; k < p.nint; ++k) at[k] += c * p.item_b[k][d];
    if (d == p.b_last) last = c;
  }
  for (int k = 0; k < p.nint; ++k) {
    long v = idx[p.item_off[k] + at[k]];
    if (v < 0) v += p.item_size[k];
    s += v * p.item_stride[k];
  }
  for (int k = 0; k < p.nmask; ++k) s += scratch[p.mask_at[k] + last];
  out[o] = self[s];
}
)CLC";

struct Plan {
  cl_long out_size[kMaxRank] = {}, out_stride[kMaxRank] = {}, src_stride[kMaxRank] = {};
  cl_long item_off[kMaxItems] = {}, item_size[kMaxItems] = {}, item_stride[kMaxItems] = {};
  cl_long item_b[kMaxItems][kMaxRank] = {};
  cl_long mask_at[kMaxItems] = {};
  cl_long n = 1;
  cl_int rank = 0, nint = 0, nmask = 0, b_last = 0;
};
static_assert(sizeof(Plan) == 600, "Plan must match the OpenCL C struct");

struct Mask {
  cl_long size[kMaxRank] = {}, stride[kMaxRank] = {}, self_stride[kMaxRank] = {};
  cl_long at = 0, m = 0;
  cl_int rank = 0, unused = 0;
};

const char* options_for(int32_t dtype, bool i32_index) {
  switch (kgb_dtype_size(dtype)) {
    case 1: return i32_index ? "-cl-std=CL1.2 -DELEM=1 -DIDX=int" : "-cl-std=CL1.2 -DELEM=1";
    case 2: return i32_index ? "-cl-std=CL1.2 -DELEM=2 -DIDX=int" : "-cl-std=CL1.2 -DELEM=2";
    case 4: return i32_index ? "-cl-std=CL1.2 -DELEM=4 -DIDX=int" : "-cl-std=CL1.2 -DELEM=4";
    default: return i32_index ? "-cl-std=CL1.2 -DELEM=8 -DIDX=int" : "-cl-std=CL1.2 -DELEM=8";
  }
}

int index_tensor(const kgb_tensor* self, const kgb_tensor_list* indices, kgb_tensor* out, kgb_stream stream) {
  const int rank = self->rank;
  if (out->dtype != self->dtype || rank > kMaxRank || out->rank > kMaxRank) return KGB_ERR_UNSUPPORTED;
  cl_mem storage = nullptr, offsets = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, indices, &storage, &offsets) != CL_SUCCESS) return KGB_ERR_INVALID;

  // Walk the items against the dims of self: None one sliced dim, an integer
  // item one advanced dim, a mask as many advanced dims as it has.
  Plan p;
  const kgb_tensor* items[kMaxItems];
  int item_dim[kMaxItems], n_items = 0, d = 0, first = rank, last = -1, advanced = 0, b_rank = 0, int_dtype = -1;
  bool sliced[kMaxRank];
  std::fill(sliced, sliced + kMaxRank, true);
  for (int64_t k = 0; k < indices->count; ++k) {
    const kgb_tensor* t = indices->items[k];
    if (!t) {
      ++d;
      continue;
    }
    const bool mask = t->dtype == KGB_BOOL;
    if (!mask && t->dtype != KGB_I64 && t->dtype != KGB_I32) return KGB_ERR_UNSUPPORTED;
    if (!mask && int_dtype >= 0 && int_dtype != t->dtype) return KGB_ERR_UNSUPPORTED;
    if (!mask) int_dtype = t->dtype;
    const int covers = mask ? t->rank : 1;
    if (d + covers > rank) return KGB_ERR_INVALID;
    if (n_items == kMaxItems) return KGB_ERR_UNSUPPORTED;
    items[n_items] = t;
    item_dim[n_items++] = d;
    for (int j = 0; j < covers; ++j) sliced[d + j] = false;
    if (covers > 0) {
      first = std::min(first, d);
      last = std::max(last, d + covers - 1);
    }
    advanced += covers;
    b_rank = std::max(b_rank, mask ? 1 : static_cast<int>(t->rank));
    d += covers;
  }
  if (advanced == 0 || d > rank) return KGB_ERR_INVALID;
  const bool adjacent = last - first + 1 == advanced;
  int other[kMaxRank], n_other = 0, b_at = 0;
  for (int k = 0; k < rank; ++k)
    if (sliced[k]) {
      other[n_other++] = k;
      if (adjacent && k < first) ++b_at;
    }
  if (out->rank != n_other + b_rank) return KGB_ERR_INVALID;
  p.rank = out->rank;
  p.b_last = b_at + b_rank - 1;
  for (int r = 0; r < out->rank; ++r) {
    p.out_size[r] = out->sizes[r];
    p.out_stride[r] = out->strides[r];
    p.n *= out->sizes[r];
  }
  for (int i = 0; i < n_other; ++i) p.src_stride[i < b_at ? i : i + b_rank] = self->strides[other[i]];
  if (p.n == 0) return KGB_OK;

  cl_int err = CL_SUCCESS;
  const cl_long m = out->sizes[p.b_last];
  int masks = 0;
  for (int k = 0; k < n_items; ++k) masks += items[k]->dtype == KGB_BOOL;
  cl_mem scratch = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE,
                                  sizeof(cl_long) * static_cast<size_t>(std::max<cl_long>(1, masks * m)), nullptr, &err);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const char* options = options_for(self->dtype, int_dtype == KGB_I32);
  for (int k = 0; k < n_items && err == CL_SUCCESS; ++k) {
    const kgb_tensor* t = items[k];
    cl_mem buffer = nullptr;
    cl_long off = 0;
    if (kgb_cl_tensor_buffer(stream, t, &buffer, &off) != CL_SUCCESS) err = CL_INVALID_VALUE;
    if (t->dtype != KGB_BOOL) {
      const int i = p.nint++;
      p.item_off[i] = off;
      p.item_size[i] = self->sizes[item_dim[k]];
      p.item_stride[i] = self->strides[item_dim[k]];
      for (int j = 0; j < t->rank; ++j) {  // right-aligned against B
        const int r = b_at + b_rank - t->rank + j;
        if (t->sizes[j] == out->sizes[r]) p.item_b[i][r] = t->sizes[j] == 1 ? 0 : t->strides[j];
        else if (t->sizes[j] != 1) err = CL_INVALID_VALUE;
      }
      continue;
    }
    Mask mk;
    mk.rank = t->rank;
    mk.m = m;
    mk.at = p.nmask * m;
    for (int j = 0; j < t->rank; ++j) {
      if (t->sizes[j] != self->sizes[item_dim[k] + j]) err = CL_INVALID_VALUE;
      mk.size[j] = t->sizes[j];
      mk.stride[j] = t->strides[j];
      mk.self_stride[j] = self->strides[item_dim[k] + j];
    }
    p.mask_at[p.nmask++] = mk.at;
    cl_kernel c = kernel(stream, kSource, options, "compact");
    if (!c || err != CL_SUCCESS) {
      err = CL_INVALID_VALUE;
      break;
    }
    Args args{stream, c};
    args.value(storage).value(off).value(scratch).value(mk);
    err = args.error;
    const size_t one = 1;
    if (err == CL_SUCCESS) err = kgb_cl_enqueue(stream, c, 1, &one, &one);
  }
  int status = KGB_ERR_INVALID;
  cl_kernel g = err == CL_SUCCESS ? kernel(stream, kSource, options, "gather") : nullptr;
  if (g) {
    Args args{stream, g};
    args.tensor(self).tensor(out).value(storage).value(scratch).value(p);
    if (args.error == CL_SUCCESS) status = launch(stream, g, p.n);
  }
  clReleaseMemObject(scratch);  // freed once the queued kernels are done with it
  return status;
}

}  // namespace
KGB_BASELINE(aten_index, kKind, index_tensor);
}  // namespace kgb::opencl::plain
