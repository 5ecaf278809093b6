// aten/index (index.Tensor) in OpenCL.
//
// The host works out the geometry from shapes alone, never reading an index
// or mask value: the list items are walked against the dims of self (None:
// one sliced dim; integer item: one advanced dim; bool mask: as many advanced
// dims as it has), B (the broadcast advanced shape) is read off out's shape,
// and B sits in place when the advanced dims are adjacent, else first. out is
// a set of rows: (sliced position before B, b in B, outer sliced position
// after B) picks a source row; the innermost sliced dims, merged where self
// and out are contiguous across them, form the row. The geometry travels by
// value in one kernel argument (under the 1024 bytes every OpenCL 1.2 device
// accepts).
//
// Masks are compacted on the device into a scratch buffer, three kernels per
// mask: per-tile true counts, one work-group scanning the tile counts, and
// per tile an in-order write of the self offset of each true element. The
// copy kernel (one work-item per element, row elements fastest so
// neighbouring work-items touch neighbouring memory) adds the integer indices
// (negative ones wrapped) and the compacted mask offsets of its row.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr int kMax = 8;      // sliced dims before / after B, dims of B
constexpr int kItems = 4;    // integer items or masks
constexpr int kGroup = 256;  // work-group size of every kernel
constexpr int kTile = 4 * kGroup;

const char kSource[] = R"CLC(
#ifndef E  // set by the build options; the defaults let tools parse the program
#define E uint
#endif
#ifndef IDX
#define IDX long
#endif
typedef struct {
  long nb, npost, nbefore, len, n;
  long row_self, row_out, self_off, out_off;
  long bsize[8], bout[8];
  long pre_size[8], pre_self[8], pre_out[8];
  long post_size[8], post_self[8], post_out[8];
  long item_off[4], item_size[4], item_stride[4];
  long mask_at[4], mask_m[4];
  int item_b[32];
  int rb, nbefore_dims, npost_dims, nint, nmask, unused;
} G;

typedef struct {
  long n, off;
  long size[8], stride[8], self_stride[8];
  int rank, unused;
} W;

void mask_at(const W* w, long i, long* at, long* so) {
  long a = 0, s = 0;
  for (int j = w->rank - 1; j >= 0; --j) {
    const long q = i / w->size[j], r = i - q * w->size[j];
    a += r * w->stride[j];
    s += r * w->self_stride[j];
    i = q;
  }
  *at = w->off + a;
  *so = s;
}

// Exclusive scan of one value per work-item across the work-group.
long group_scan(long v, __local long* tmp, long* total) {
  const int t = get_local_id(0), n = get_local_size(0);
  tmp[t] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = 1; step < n; step <<= 1) {
    const long add = t >= step ? tmp[t - step] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[t] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *total = tmp[n - 1];
  const long inclusive = tmp[t];
  barrier(CLK_LOCAL_MEM_FENCE);
  return inclusive - v;
}

__kernel void mask_count(__global const uchar* mask, W w, __global long* scratch, long counts_at) {
  __local long tmp[256];
  const long first = get_group_id(0) * (4 * get_local_size(0)) + get_local_id(0) * 4;
  long c = 0;
  for (int e = 0; e < 4; ++e) {
    long at, so;
    if (first + e >= w.n) break;
    mask_at(&w, first + e, &at, &so);
    c += mask[at] != 0;
  }
  long total;
  group_scan(c, tmp, &total);
  if (get_local_id(0) == 0) scratch[counts_at + get_group_id(0)] = total;
}

__kernel void scan_counts(__global long* scratch, long counts_at, long tiles) {
  __local long tmp[256];
  long carry = 0;
  for (long base = 0; base < tiles; base += get_local_size(0)) {
    const long i = base + get_local_id(0);
    const long v = i < tiles ? scratch[counts_at + i] : 0;
    long total;
    const long ex = group_scan(v, tmp, &total);
    if (i < tiles) scratch[counts_at + i] = carry + ex;
    carry += total;
  }
}

__kernel void mask_write(__global const uchar* mask, W w, __global long* scratch, long counts_at, long offs_at, long m) {
  __local long tmp[256];
  const long first = get_group_id(0) * (4 * get_local_size(0)) + get_local_id(0) * 4;
  long so[4];
  int on[4];
  long c = 0;
  for (int e = 0; e < 4; ++e) {
    long at = 0;
    so[e] = 0;
    on[e] = 0;
    if (first + e < w.n) {
      mask_at(&w, first + e, &at, &so[e]);
      on[e] = mask[at] != 0;
    }
    c += on[e];
  }
  long total;
  long j = scratch[counts_at + get_group_id(0)] + group_scan(c, tmp, &total);
  for (int e = 0; e < 4; ++e)
    if (on[e]) {
      if (j < m) scratch[offs_at + j] = so[e];
      ++j;
    }
}

__kernel void copy_rows(__global const E* self, __global E* out, __global const IDX* idx, __global const long* scratch, G g) {
  const long i = get_global_id(0);
  if (i >= g.n) return;
  long r = i / g.len;
  const long c = i - r * g.len;
  long s = g.self_off + c * g.row_self, o = g.out_off + c * g.row_out;
  for (int d = g.npost_dims - 1; d >= 0; --d) {
    const long q = r / g.post_size[d], x = r - q * g.post_size[d];
    s += x * g.post_self[d];
    o += x * g.post_out[d];
    r = q;
  }
  long bi[8];
  for (int d = g.rb - 1; d >= 0; --d) {
    const long q = r / g.bsize[d];
    bi[d] = r - q * g.bsize[d];
    o += bi[d] * g.bout[d];
    r = q;
  }
  for (int d = g.nbefore_dims - 1; d >= 0; --d) {
    const long q = r / g.pre_size[d], x = r - q * g.pre_size[d];
    s += x * g.pre_self[d];
    o += x * g.pre_out[d];
    r = q;
  }
  for (int k = 0; k < g.nint; ++k) {
    long at = g.item_off[k];
    for (int d = 0; d < g.rb; ++d) at += bi[d] * g.item_b[k * 8 + d];
    long v = idx[at];
    if (v < 0) v += g.item_size[k];
    s += v * g.item_stride[k];
  }
  for (int k = 0; k < g.nmask; ++k) s += scratch[g.mask_at[k] + (g.mask_m[k] == 1 ? 0 : bi[g.rb - 1])];
  out[o] = self[s];
}
)CLC";

struct G {
  cl_long nb, npost, nbefore, len, n;
  cl_long row_self, row_out, self_off, out_off;
  cl_long bsize[kMax], bout[kMax];
  cl_long pre_size[kMax], pre_self[kMax], pre_out[kMax];
  cl_long post_size[kMax], post_self[kMax], post_out[kMax];
  cl_long item_off[kItems], item_size[kItems], item_stride[kItems];
  cl_long mask_at[kItems], mask_m[kItems];
  cl_int item_b[kItems * kMax];
  cl_int rb, nbefore_dims, npost_dims, nint, nmask, unused;
};
static_assert(sizeof(G) == 896, "G must match the OpenCL C struct");

struct W {
  cl_long n, off;
  cl_long size[kMax], stride[kMax], self_stride[kMax];
  cl_int rank, unused;
};

const char* options_for(int elem, bool i64) {
  static const char* const table[2][4] = {
      {"-cl-std=CL1.2 -DE=uchar -DIDX=int", "-cl-std=CL1.2 -DE=ushort -DIDX=int", "-cl-std=CL1.2 -DE=uint -DIDX=int",
       "-cl-std=CL1.2 -DE=ulong -DIDX=int"},
      {"-cl-std=CL1.2 -DE=uchar -DIDX=long", "-cl-std=CL1.2 -DE=ushort -DIDX=long", "-cl-std=CL1.2 -DE=uint -DIDX=long",
       "-cl-std=CL1.2 -DE=ulong -DIDX=long"}};
  return table[i64][elem == 1 ? 0 : elem == 2 ? 1 : elem == 4 ? 2 : 3];
}

size_t round_up(int64_t n) { return static_cast<size_t>((n + kGroup - 1) / kGroup * kGroup); }

}  // namespace

extern "C" int kgb_aten_index(const kgb_tensor* self, const kgb_tensor_list* indices, kgb_tensor* out, kgb_stream stream) {
  const int elem = kgb_dtype_size(self->dtype);
  switch (self->dtype) {
    case KGB_F32: case KGB_F16: case KGB_BF16: case KGB_F64: case KGB_I64: case KGB_I32: case KGB_U8: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (out->dtype != self->dtype) return KGB_ERR_INVALID;
  const int rank = self->rank;

  G g{};
  cl_mem storage = nullptr, offsets = nullptr;
  if (kgb_cl_tensor_list_buffers(stream, indices, &storage, &offsets) != CL_SUCCESS) return KGB_ERR_INVALID;
  const kgb_tensor* masks[kItems];
  int mask_dim[kItems], int_dim[kItems];
  const kgb_tensor* ints[kItems];
  bool sliced[kMax];
  for (int d = 0; d < kMax; ++d) sliced[d] = true;
  int d = 0, first = rank, last = -1, nadv = 0, int_dtype = -1;
  for (int64_t k = 0; k < indices->count; ++k) {
    const kgb_tensor* t = indices->items[k];
    if (!t) {
      ++d;
      continue;
    }
    const bool mask = t->dtype == KGB_BOOL;
    if (!mask && t->dtype != KGB_I64 && t->dtype != KGB_I32) return KGB_ERR_UNSUPPORTED;
    const int covers = mask ? t->rank : 1;
    if (d + covers > rank || rank > kMax) return KGB_ERR_INVALID;
    if (mask) {
      for (int j = 0; j < covers; ++j)
        if (t->sizes[j] != self->sizes[d + j]) return KGB_ERR_INVALID;
      if (g.nmask == kItems) return KGB_ERR_UNSUPPORTED;
      masks[g.nmask] = t;
      mask_dim[g.nmask++] = d;
    } else {
      if (g.nint == kItems || (int_dtype >= 0 && int_dtype != t->dtype)) return KGB_ERR_UNSUPPORTED;
      int_dtype = t->dtype;
      ints[g.nint] = t;
      int_dim[g.nint++] = d;
    }
    for (int j = 0; j < covers; ++j) sliced[d + j] = false;
    if (covers > 0) {
      first = first < d ? first : d;
      last = last > d + covers - 1 ? last : d + covers - 1;
    }
    nadv += covers;
    const int r = mask ? 1 : t->rank;
    g.rb = g.rb > r ? g.rb : r;
    d += covers;
  }
  if (nadv == 0 || d > rank) return KGB_ERR_INVALID;
  const bool adjacent = last - first + 1 == nadv;
  int other[kMax], no = 0, b_at = 0;
  for (int k = 0; k < rank; ++k)
    if (sliced[k]) {
      other[no++] = k;
      if (adjacent && k < first) ++b_at;
    }
  if (out->rank != no + g.rb) return KGB_ERR_INVALID;
  for (int i = 0; i < no; ++i)
    if (out->sizes[i < b_at ? i : i + g.rb] != self->sizes[other[i]]) return KGB_ERR_INVALID;
  g.nb = 1;
  for (int r = 0; r < g.rb; ++r) {
    g.bsize[r] = out->sizes[b_at + r];
    g.bout[r] = out->strides[b_at + r];
    g.nb *= g.bsize[r];
  }
  for (int k = 0; k < g.nint; ++k) {
    const kgb_tensor* t = ints[k];
    cl_mem buffer = nullptr;
    if (kgb_cl_tensor_buffer(stream, t, &buffer, &g.item_off[k]) != CL_SUCCESS || buffer != storage) return KGB_ERR_INVALID;
    g.item_size[k] = self->sizes[int_dim[k]];
    g.item_stride[k] = self->strides[int_dim[k]];
    for (int j = 0; j < t->rank; ++j) {
      const int at = g.rb - t->rank + j;
      if (t->sizes[j] == g.bsize[at]) {
        if (t->sizes[j] == 1) continue;
        if (t->strides[j] > INT32_MAX || t->strides[j] < INT32_MIN) return KGB_ERR_UNSUPPORTED;
        g.item_b[k * kMax + at] = static_cast<cl_int>(t->strides[j]);
      } else if (t->sizes[j] != 1) {
        return KGB_ERR_INVALID;
      }
    }
  }
  // Sliced dims: before B as they are; after B merged, the innermost one is the row.
  g.nbefore = 1;
  for (int i = 0; i < b_at; ++i) {
    g.pre_size[g.nbefore_dims] = self->sizes[other[i]];
    g.pre_self[g.nbefore_dims] = self->strides[other[i]];
    g.pre_out[g.nbefore_dims++] = out->strides[i];
    g.nbefore *= self->sizes[other[i]];
  }
  int na = 0;
  cl_long as[kMax], aself[kMax], aout[kMax];
  for (int i = b_at; i < no; ++i) {
    const cl_long size = self->sizes[other[i]], st = self->strides[other[i]], o = out->strides[i + g.rb];
    if (size == 1) continue;
    if (na > 0 && aself[na - 1] == st * size && aout[na - 1] == o * size) {
      as[na - 1] *= size;
      aself[na - 1] = st;
      aout[na - 1] = o;
      continue;
    }
    as[na] = size;
    aself[na] = st;
    aout[na++] = o;
  }
  g.len = 1;
  if (na > 0) {
    --na;
    g.len = as[na];
    g.row_self = aself[na];
    g.row_out = aout[na];
  }
  g.npost = 1;
  for (int i = 0; i < na; ++i) {
    g.post_size[i] = as[i];
    g.post_self[i] = aself[i];
    g.post_out[i] = aout[i];
    g.npost *= as[i];
  }
  g.npost_dims = na;
  g.n = g.nbefore * g.nb * g.npost * g.len;
  if (g.n == 0) return KGB_OK;

  cl_mem self_buffer = nullptr, out_buffer = nullptr;
  if (kgb_cl_tensor_buffer(stream, self, &self_buffer, &g.self_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (kgb_cl_tensor_buffer(stream, out, &out_buffer, &g.out_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  const char* options = options_for(elem, int_dtype != KGB_I32);

  // Mask compaction into one scratch buffer: per mask its tile counts, then its offsets.
  cl_int err = CL_SUCCESS;
  int64_t need = 1;
  const cl_long m = g.nmask > 0 ? g.bsize[g.rb - 1] : 0;
  for (int k = 0; k < g.nmask; ++k) {
    int64_t n = 1;
    for (int j = 0; j < masks[k]->rank; ++j) n *= masks[k]->sizes[j];
    need += (n + kTile - 1) / kTile + m;
  }
  cl_mem scratch = clCreateBuffer(kgb_cl_get_context(stream), CL_MEM_READ_WRITE, sizeof(cl_long) * static_cast<size_t>(need), nullptr, &err);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_long at = 0;
  for (int k = 0; k < g.nmask && err == CL_SUCCESS; ++k) {
    const kgb_tensor* t = masks[k];
    W w{};
    w.rank = t->rank;
    w.n = 1;
    for (int j = 0; j < t->rank; ++j) {
      w.size[j] = t->sizes[j];
      w.stride[j] = t->strides[j];
      w.self_stride[j] = self->strides[mask_dim[k] + j];
      w.n *= t->sizes[j];
    }
    cl_mem buffer = nullptr;
    if (kgb_cl_tensor_buffer(stream, t, &buffer, &w.off) != CL_SUCCESS || buffer != storage) err = CL_INVALID_VALUE;
    const cl_long tiles = (w.n + kTile - 1) / kTile, counts_at = at, offs_at = at + tiles;
    at += tiles + m;
    g.mask_at[k] = offs_at;
    g.mask_m[k] = m;
    if (tiles == 0 || err != CL_SUCCESS) continue;
    cl_kernel count = nullptr, scan = nullptr, write = nullptr;
    err |= kgb_cl_get_kernel(stream, kSource, options, "mask_count", &count);
    err |= kgb_cl_get_kernel(stream, kSource, options, "scan_counts", &scan);
    err |= kgb_cl_get_kernel(stream, kSource, options, "mask_write", &write);
    if (err != CL_SUCCESS) break;
    const size_t local = kGroup, tiles_global = static_cast<size_t>(tiles) * kGroup;
    err |= clSetKernelArg(count, 0, sizeof storage, &storage);
    err |= clSetKernelArg(count, 1, sizeof w, &w);
    err |= clSetKernelArg(count, 2, sizeof scratch, &scratch);
    err |= clSetKernelArg(count, 3, sizeof counts_at, &counts_at);
    err |= kgb_cl_enqueue(stream, count, 1, &tiles_global, &local);
    err |= clSetKernelArg(scan, 0, sizeof scratch, &scratch);
    err |= clSetKernelArg(scan, 1, sizeof counts_at, &counts_at);
    err |= clSetKernelArg(scan, 2, sizeof tiles, &tiles);
    err |= kgb_cl_enqueue(stream, scan, 1, &local, &local);
    err |= clSetKernelArg(write, 0, sizeof storage, &storage);
    err |= clSetKernelArg(write, 1, sizeof w, &w);
    err |= clSetKernelArg(write, 2, sizeof scratch, &scratch);
    err |= clSetKernelArg(write, 3, sizeof counts_at, &counts_at);
    err |= clSetKernelArg(write, 4, sizeof offs_at, &offs_at);
    err |= clSetKernelArg(write, 5, sizeof m, &m);
    err |= kgb_cl_enqueue(stream, write, 1, &tiles_global, &local);
  }
  cl_kernel copy = nullptr;
  if (err == CL_SUCCESS) err = kgb_cl_get_kernel(stream, kSource, options, "copy_rows", &copy);
  if (err == CL_SUCCESS) {
    err |= clSetKernelArg(copy, 0, sizeof self_buffer, &self_buffer);
    err |= clSetKernelArg(copy, 1, sizeof out_buffer, &out_buffer);
    err |= clSetKernelArg(copy, 2, sizeof storage, &storage);
    err |= clSetKernelArg(copy, 3, sizeof scratch, &scratch);
    err |= clSetKernelArg(copy, 4, sizeof g, &g);
    const size_t local = kGroup, global = round_up(g.n);
    err |= kgb_cl_enqueue(stream, copy, 1, &global, &local);
  }
  clReleaseMemObject(scratch);  // freed once the queued kernels are done with it
  return err == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
