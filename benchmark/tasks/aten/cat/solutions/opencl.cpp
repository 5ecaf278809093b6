// aten/cat in OpenCL: one launch copies a batch of up to 6 items, their
// descriptors passed by value as one kernel argument (920 bytes, inside the
// 1024 bytes every OpenCL 1.2 device accepts), so nothing is allocated.
//
// The items of the list share one buffer (kgb_cl_tensor_list_buffers); the
// host knows each item's element offset in it (kgb_cl_tensor_buffer). Each
// item's copy is simplified (size-1 dims dropped, dims contiguous in both the
// item and its out slice merged) into rows of copy units, the widest unit
// (16, 8, 4, 2 or 1 bytes) that the byte offsets, the row length and the row
// strides allow, so a dense item moves as uint4 whatever its dtype.
// Work-groups are numbered across the batch: a group owns part of one long
// row or a run of short rows, and neighbouring work-items copy neighbouring
// units. An item whose copy keeps more than three outer dims after merging
// (rare: rank >= 5 and nothing mergeable) goes through a plain
// one-element-per-work-item kernel.
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr int kMaxItems = 6;
constexpr int kMaxOuter = 3;
constexpr size_t kGroup = 256;
constexpr cl_long kUnitsPerItem = 4;
constexpr cl_long kUnitsPerGroup = kGroup * kUnitsPerItem;

const char kSource[] = R"CLC(
#define MAX_ITEMS 6
#define MAX_OUTER 3
#define GROUP 256
#define UNITS_PER_ITEM 4
// f: 0 src byte offset, 1 dst byte offset, 2 rows, 3 units per row, 4/5 bytes
// between units in the item / in out, 6 first group, 7 groups per row (0: runs
// of short rows), 8 unit bytes, 9 outer dims.
typedef struct { long f[10]; long osize[MAX_OUTER]; long os_src[MAX_OUTER]; long os_dst[MAX_OUTER]; } Item;
typedef struct { Item items[MAX_ITEMS]; long count; } Batch;

void row_offsets(const Item* it, long row, long* so, long* dof) {
  long a = 0, b = 0;
  for (int d = (int)it->f[9] - 1; d >= 0; --d) {
    long q = row / it->osize[d], i = row - q * it->osize[d];
    row = q;
    a += i * it->os_src[d];
    b += i * it->os_dst[d];
  }
  *so = a;
  *dof = b;
}

#define COPY_ITEM(NAME, U)                                                                    \
void NAME(const Item* it, long group, __global const uchar* src, __global uchar* dst) {      \
  const long lid = get_local_id(0);                                                          \
  if (it->f[7] > 0) {                                                                        \
    long row = group / it->f[7];                                                             \
    long c0 = (group - row * it->f[7]) * (GROUP * UNITS_PER_ITEM);                           \
    long so, dof;                                                                            \
    row_offsets(it, row, &so, &dof);                                                         \
    __global const uchar* s = src + it->f[0] + so;                                           \
    __global uchar* d = dst + it->f[1] + dof;                                                \
    for (int k = 0; k < UNITS_PER_ITEM; ++k) {                                               \
      long c = c0 + lid + k * GROUP;                                                         \
      if (c < it->f[3]) *(__global U*)(d + c * it->f[5]) = *(__global const U*)(s + c * it->f[4]); \
    }                                                                                        \
    return;                                                                                  \
  }                                                                                          \
  const long total = it->f[2] * it->f[3];                                                    \
  const uint units = (uint)it->f[3];                                                         \
  for (int k = 0; k < UNITS_PER_ITEM; ++k) {                                                 \
    long u = group * (GROUP * UNITS_PER_ITEM) + lid + k * GROUP;                             \
    if (u >= total) return;                                                                  \
    uint row = (uint)u / units, col = (uint)u - row * units;                                 \
    long so, dof;                                                                            \
    row_offsets(it, row, &so, &dof);                                                         \
    *(__global U*)(dst + it->f[1] + dof + col * it->f[5]) =                                  \
        *(__global const U*)(src + it->f[0] + so + col * it->f[4]);                          \
  }                                                                                          \
}
COPY_ITEM(copy16, uint4)
COPY_ITEM(copy8, uint2)
COPY_ITEM(copy4, uint)
COPY_ITEM(copy2, ushort)
COPY_ITEM(copy1, uchar)

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void cat_batch(__global const uchar* src, __global uchar* dst, Batch b) {
  const long g = get_group_id(0);
  int i = 0;
  while (i + 1 < b.count && g >= b.items[i + 1].f[6]) ++i;
  const Item it = b.items[i];
  const long group = g - it.f[6];
  switch ((int)it.f[8]) {
    case 16: copy16(&it, group, src, dst); break;
    case 8: copy8(&it, group, src, dst); break;
    case 4: copy4(&it, group, src, dst); break;
    case 2: copy2(&it, group, src, dst); break;
    default: copy1(&it, group, src, dst); break;
  }
}

// Any rank: one element per work-item, the index decomposed over all dims.
typedef struct { long size[8]; long ss[8]; long ds[8]; } Dims;
__kernel void cat_any(__global const uchar* src, long src_off, __global uchar* dst, long dst_off, Dims g, int rank,
                      int elem, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a = 0, b = 0;
  for (int d = rank - 1; d >= 0; --d) {
    long q = i / g.size[d], r = i - q * g.size[d];
    i = q;
    a += r * g.ss[d];
    b += r * g.ds[d];
  }
  __global const uchar* s = src + src_off + a * elem;
  __global uchar* t = dst + dst_off + b * elem;
  for (int k = 0; k < elem; ++k) t[k] = s[k];
}
)CLC";

struct Item {
  cl_long f[10];
  cl_long osize[kMaxOuter], os_src[kMaxOuter], os_dst[kMaxOuter];
};
struct Batch {
  Item items[kMaxItems];
  cl_long count;
};
static_assert(sizeof(Batch) == 920, "Batch must match the OpenCL C struct");

struct Dims {
  cl_long size[8], ss[8], ds[8];
};

// One item's copy after merging: sizes and element strides, outermost first.
struct Merged {
  int n = 0;
  cl_long size[KGB_MAX_RANK], ss[KGB_MAX_RANK], ds[KGB_MAX_RANK];
};

Merged merge(const kgb_tensor* t, const int64_t* out_strides) {
  Merged m;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    if (m.n > 0 && m.ss[m.n - 1] == t->strides[d] * t->sizes[d] && m.ds[m.n - 1] == out_strides[d] * t->sizes[d]) {
      m.size[m.n - 1] *= t->sizes[d];
      m.ss[m.n - 1] = t->strides[d];
      m.ds[m.n - 1] = out_strides[d];
      continue;
    }
    m.size[m.n] = t->sizes[d];
    m.ss[m.n] = t->strides[d];
    m.ds[m.n] = out_strides[d];
    ++m.n;
  }
  if (m.n == 0) {
    m.size[0] = m.ss[0] = m.ds[0] = 1;
    m.n = 1;
  }
  return m;
}

// Fills `it` (f[6], the first group, is set by the caller) from a merged copy
// whose item starts src_off bytes into the list buffer and whose out slice
// starts dst_off bytes into out's buffer.
void describe(const Merged& m, cl_long src_off, cl_long dst_off, int elem, int max_unit, Item& it) {
  it = Item{};
  const int outer = m.n - 1;
  cl_long rows = 1;
  for (int d = 0; d < outer; ++d) {
    it.osize[d] = m.size[d];
    it.os_src[d] = m.ss[d] * elem;
    it.os_dst[d] = m.ds[d] * elem;
    rows *= m.size[d];
  }
  const cl_long len = m.size[outer];
  int unit = elem;
  cl_long ss = m.ss[outer] * elem, ds = m.ds[outer] * elem;
  if (m.ss[outer] == 1 && m.ds[outer] == 1) {
    for (int v = max_unit; v > elem; v /= 2) {
      bool ok = src_off % v == 0 && dst_off % v == 0 && (len * elem) % v == 0;
      for (int d = 0; d < outer && ok; ++d) ok = it.os_src[d] % v == 0 && it.os_dst[d] % v == 0;
      if (ok) {
        unit = v;
        break;
      }
    }
    ss = ds = unit;
  }
  const cl_long units = len * elem / unit;
  it.f[0] = src_off;
  it.f[1] = dst_off;
  it.f[2] = rows;
  it.f[3] = units;
  it.f[4] = ss;
  it.f[5] = ds;
  it.f[7] = units >= kUnitsPerGroup / 2 || rows * units >= (1ll << 31) ? (units + kUnitsPerGroup - 1) / kUnitsPerGroup : 0;
  it.f[8] = unit;
  it.f[9] = outer;
}

cl_long groups_of(const Item& it) { return it.f[7] > 0 ? it.f[2] * it.f[7] : (it.f[2] * it.f[3] + kUnitsPerGroup - 1) / kUnitsPerGroup; }

}  // namespace

extern "C" int kgb_aten_cat(const kgb_tensor_list* tensors, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  switch (out->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  const int elem = kgb_dtype_size(out->dtype);
  const int rank = out->rank;
  if (rank < 1 || dim < -rank || dim >= rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank;
  const int d = static_cast<int>(dim);
  for (int64_t k = 0; k < tensors->count; ++k) {
    const kgb_tensor* t = tensors->items[k];
    if (!t || t->dtype != out->dtype) return KGB_ERR_INVALID;
    if (t->rank == 1 && t->sizes[0] == 0) continue;
    if (t->rank != rank) return KGB_ERR_INVALID;
    for (int i = 0; i < rank; ++i)
      if (i != d && t->sizes[i] != out->sizes[i]) return KGB_ERR_INVALID;
  }
  if (kgb_numel(out) == 0) return KGB_OK;

  cl_mem storage = nullptr, offsets = nullptr, out_buffer = nullptr;
  cl_long out_off = 0;
  if (kgb_cl_tensor_list_buffers(stream, tensors, &storage, &offsets) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (kgb_cl_tensor_buffer(stream, out, &out_buffer, &out_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  // Buffers start at CL_DEVICE_MEM_BASE_ADDR_ALIGN (bits): units never exceed it.
  cl_uint align_bits = 128;
  clGetDeviceInfo(kgb_cl_get_device(stream), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, nullptr);
  int max_unit = 16;
  while (max_unit > 1 && static_cast<cl_uint>(max_unit * 8) > align_bits) max_unit /= 2;

  cl_kernel batch_kernel = nullptr, any_kernel = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "cat_batch", &batch_kernel) != CL_SUCCESS) return KGB_ERR_INVALID;
  Batch batch{};
  cl_long groups = 0;
  auto flush = [&]() -> bool {
    if (batch.count == 0) return true;
    cl_int err = clSetKernelArg(batch_kernel, 0, sizeof storage, &storage);
    err |= clSetKernelArg(batch_kernel, 1, sizeof out_buffer, &out_buffer);
    err |= clSetKernelArg(batch_kernel, 2, sizeof batch, &batch);
    const size_t global = static_cast<size_t>(groups) * kGroup, local = kGroup;
    err |= kgb_cl_enqueue(stream, batch_kernel, 1, &global, &local);
    batch.count = 0;
    groups = 0;
    return err == CL_SUCCESS;
  };

  cl_long offset = 0;  // along dim, where the next item starts in out
  for (int64_t k = 0; k < tensors->count; ++k) {
    const kgb_tensor* t = tensors->items[k];
    if (t->rank == 1 && t->sizes[0] == 0) continue;  // the legacy rule: [0] items are skipped
    const cl_long numel = kgb_numel(t);
    const cl_long slice = offset * out->strides[d];
    offset += t->sizes[d];
    if (numel == 0) continue;
    cl_mem item_buffer = nullptr;
    cl_long item_off = 0;
    if (kgb_cl_tensor_buffer(stream, t, &item_buffer, &item_off) != CL_SUCCESS || item_buffer != storage) return KGB_ERR_INVALID;
    const Merged m = merge(t, out->strides);
    if (m.n - 1 > kMaxOuter) {  // rare: the plain kernel
      if (!any_kernel && kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", "cat_any", &any_kernel) != CL_SUCCESS) return KGB_ERR_INVALID;
      Dims g{};
      for (int i = 0; i < m.n; ++i) {
        g.size[i] = m.size[i];
        g.ss[i] = m.ss[i];
        g.ds[i] = m.ds[i];
      }
      const cl_long src_byte = item_off * elem, dst_byte = (out_off + slice) * elem;
      const cl_int r = m.n, e = elem;
      cl_int err = clSetKernelArg(any_kernel, 0, sizeof storage, &storage);
      err |= clSetKernelArg(any_kernel, 1, sizeof src_byte, &src_byte);
      err |= clSetKernelArg(any_kernel, 2, sizeof out_buffer, &out_buffer);
      err |= clSetKernelArg(any_kernel, 3, sizeof dst_byte, &dst_byte);
      err |= clSetKernelArg(any_kernel, 4, sizeof g, &g);
      err |= clSetKernelArg(any_kernel, 5, sizeof r, &r);
      err |= clSetKernelArg(any_kernel, 6, sizeof e, &e);
      err |= clSetKernelArg(any_kernel, 7, sizeof numel, &numel);
      const size_t local = 64, global = (static_cast<size_t>(numel) + local - 1) / local * local;
      err |= kgb_cl_enqueue(stream, any_kernel, 1, &global, &local);
      if (err != CL_SUCCESS) return KGB_ERR_INVALID;
      continue;
    }
    Item& it = batch.items[batch.count];
    describe(m, item_off * elem, (out_off + slice) * elem, elem, max_unit, it);
    it.f[6] = groups;
    groups += groups_of(it);
    if (++batch.count == kMaxItems && !flush()) return KGB_ERR_INVALID;
  }
  return flush() ? KGB_OK : KGB_ERR_INVALID;
}
