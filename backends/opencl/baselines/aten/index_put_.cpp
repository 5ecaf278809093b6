// aten/index_put_, plain OpenCL baseline: one work-item per position of the
// non-indexed dims of self, walking every position of the broadcast index
// shape B in order. Distinct work-items never touch the same element of self
// (they differ in a non-indexed coordinate), and repeated targets within one
// work-item are summed in order, so accumulate needs no atomics (OpenCL 1.2
// has none for floats, halves or 64-bit integers). No dimension merging, no
// parallelism over B: the straightforward form of the operator.
#include <algorithm>

#include "../plain_common.h"
#include "kgb_entries/aten/index_put_.h"

namespace kgb::opencl::plain {
namespace {

constexpr int kMaxItems = 8;     // present index items (at most the rank of self)
constexpr int kMaxIndexRank = 4;  // rank of B
constexpr int kMaxOther = 8;      // non-indexed dims of self

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
#if KGB_DT == 0
typedef uchar S;
#define ACC(a, b) ((uchar)(((a) | (b)) != 0))
#else
#define ACC(a, b) STORE(LOAD(a) + LOAD(b))
#endif
typedef struct {
  long item_off[8], item_size[8], item_stride[8];
  long item_b[8][4];        // stride of item k along each dim of B (0: broadcast)
  long b_size[4], b_val[4];  // B and the stride of values along it
  long o_size[8], o_self[8], o_val[8];  // the other dims: size, stride in self, in values
  long nb, nq;
  int items, b_rank, others, accumulate;
} Plan;

__kernel void walk(__global S* self, long self_off, __global const S* values, long val_off,
                   __global const long* idx, Plan p) {
  long q = get_global_id(0);
  if (q >= p.nq) return;
  long s = self_off, v = val_off;
  for (int d = p.others - 1; d >= 0; --d) {
    long r = q % p.o_size[d];
    q /= p.o_size[d];
    s += r * p.o_self[d];
    v += r * p.o_val[d];
  }
  for (long b = 0; b < p.nb; ++b) {
    long rest = b, t = s, vb = v;
    long coord[4];
    for (int d = p.b_rank - 1; d >= 0; --d) {
      coord[d] = rest % p.b_size[d];
      rest /= p.b_size[d];
      vb += coord[d] * p.b_val[d];
    }
    for (int k = 0; k < p.items; ++k) {
      long at = p.item_off[k];
      for (int d = 0; d < p.b_rank; ++d) at += coord[d] * p.item_b[k][d];
      long i = idx[at];
      if (i < 0) i += p.item_size[k];
      t += i * p.item_stride[k];
    }
    self[t] = p.accumulate ? ACC(self[t], values[vb]) : values[vb];
  }
}
)CLC";

struct Plan {
  cl_long item_off[kMaxItems] = {}, item_size[kMaxItems] = {}, item_stride[kMaxItems] = {};
  cl_long item_b[kMaxItems][kMaxIndexRank] = {};
  cl_long b_size[kMaxIndexRank] = {}, b_val[kMaxIndexRank] = {};
  cl_long o_size[kMaxOther] = {}, o_self[kMaxOther] = {}, o_val[kMaxOther] = {};
  cl_long nb = 1, nq = 1;
  cl_int items = 0, b_rank = 0, others = 0, accumulate = 0;
};
static_assert(sizeof(Plan) == 736, "Plan must match the OpenCL C struct");

const char* options_for(int32_t dtype) {
  return dtype == KGB_BOOL ? "-cl-std=CL1.2 -DKGB_DT=0" : dtype_options(dtype);
}

int index_put_(kgb_tensor* self, const kgb_tensor_list* indices, const kgb_tensor* values, int accumulate,
               kgb_stream stream) {
  const char* options = options_for(self->dtype);
  if (!options || self->dtype == KGB_I32 || values->dtype != self->dtype) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const int rank = self->rank;
  if (indices->count < 1 || indices->count > rank) return KGB_ERR_INVALID;

  Plan p;
  p.accumulate = accumulate ? 1 : 0;
  cl_mem storage = nullptr, offsets = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, indices, &storage, &offsets) != CL_SUCCESS) return KGB_ERR_INVALID;
  int first = -1, last = -1;
  for (int k = 0; k < indices->count; ++k) {
    const kgb_tensor* t = indices->items[k];
    if (!t) continue;
    if (t->rank > kMaxIndexRank) return KGB_ERR_UNSUPPORTED;
    cl_mem buffer = nullptr;
    if (kgb_cl_tensor_buffer(stream, t, &buffer, &p.item_off[p.items]) != CL_SUCCESS) return KGB_ERR_INVALID;
    p.item_size[p.items] = self->sizes[k];
    p.item_stride[p.items] = self->strides[k];
    p.b_rank = std::max<cl_int>(p.b_rank, t->rank);
    if (first < 0) first = k;
    last = k;
    ++p.items;
  }
  if (p.items == 0) return KGB_ERR_INVALID;
  // B: the present items broadcast together, right-aligned.
  for (int d = 0; d < p.b_rank; ++d) p.b_size[d] = 1;
  int item = 0;
  for (int k = 0; k < indices->count; ++k) {
    const kgb_tensor* t = indices->items[k];
    if (!t) continue;
    for (int d = 0; d < t->rank; ++d) {
      const int at = p.b_rank - t->rank + d;
      if (t->sizes[d] == 1) continue;
      if (p.b_size[at] != 1 && p.b_size[at] != t->sizes[d]) return KGB_ERR_INVALID;
      p.b_size[at] = t->sizes[d];
      p.item_b[item][at] = t->strides[d];
    }
    ++item;
  }
  for (int d = 0; d < p.b_rank; ++d) p.nb *= p.b_size[d];

  // The indexed result R: B in place of adjacent items, else first.
  bool adjacent = true;
  for (int k = first; k <= last; ++k) adjacent = adjacent && indices->items[k] != nullptr;
  int other_dims[kMaxOther], before = 0;
  for (int d = 0; d < rank; ++d) {
    if (d < indices->count && indices->items[d]) continue;
    if (p.others == kMaxOther) return KGB_ERR_UNSUPPORTED;
    other_dims[p.others++] = d;
    if (adjacent && d < first) ++before;
  }
  const int r_rank = p.others + p.b_rank;
  int64_t r_size[kMaxOther + kMaxIndexRank], r_val[kMaxOther + kMaxIndexRank] = {};
  for (int i = 0; i < p.others; ++i) r_size[i < before ? i : i + p.b_rank] = self->sizes[other_dims[i]];
  for (int d = 0; d < p.b_rank; ++d) r_size[before + d] = p.b_size[d];
  if (values->rank > r_rank) return KGB_ERR_INVALID;
  for (int d = 0; d < values->rank; ++d) {  // values broadcast to R, right-aligned
    const int r = r_rank - values->rank + d;
    if (values->sizes[d] == r_size[r]) r_val[r] = values->strides[d];
    else if (values->sizes[d] != 1) return KGB_ERR_INVALID;
  }
  for (int d = 0; d < p.b_rank; ++d) p.b_val[d] = r_val[before + d];
  for (int i = 0; i < p.others; ++i) {
    p.o_size[i] = self->sizes[other_dims[i]];
    p.o_self[i] = self->strides[other_dims[i]];
    p.o_val[i] = r_val[i < before ? i : i + p.b_rank];
    p.nq *= p.o_size[i];
  }
  if (p.nb == 0 || p.nq == 0) return KGB_OK;

  cl_kernel k = kernel(stream, kSource, options, "walk");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args args{stream, k};
  args.tensor(self).tensor(values).value(storage).value(p);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, k, p.nq);
}

}  // namespace
KGB_BASELINE(aten_index_put_, kKind, index_put_);
}  // namespace kgb::opencl::plain
