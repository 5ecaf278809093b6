// aten/stack in OpenCL. All items have one shape, so their copies are planned
// together on the host: the item dims are simplified once (size-1 dims
// dropped, neighbouring dims merged where they are contiguous in out's slice
// and in every item), leaving rows of copy units. The items share one buffer
// (kgb_cl_tensor_list_buffers); when every item has the same strides (the
// usual case) up to 64 items share one launch, their byte offsets in that
// buffer passed by value in one descriptor (744 bytes, inside the 1024 bytes
// every OpenCL 1.2 device accepts), so nothing is allocated:
// - new dim not innermost in out: get_global_id(1) picks the item and dim 0
//   walks its rows; dense rows move in the widest unit (16, 8, 4, 2 or 1
//   bytes) that every offset, the row length and the row strides allow;
// - new dim innermost (items interleaved element by element): neighbouring
//   work-items write neighbouring out elements, work-item e taking item e % n.
// Items with different layouts get one launch each (same kernel, n = 1).
#include <stdint.h>

#include <algorithm>
#include <string>

#include "kgb_opencl.h"

namespace {

constexpr int kMaxItems = 64;
constexpr int kMaxOuter = KGB_MAX_RANK - 1;
constexpr size_t kGroup = 256;

const char kSource[] = R"CLC(
#define MAX_ITEMS 64
#define MAX_OUTER 7
// Byte offsets and strides. f: 0 rows, 1 units per row, 2/3 bytes between
// units in an item / in out, 4 bytes between items in out, 5 outer dims,
// 6 items, 7 out's byte offset.
typedef struct {
  long src[MAX_ITEMS]; long osize[MAX_OUTER]; long os_src[MAX_OUTER]; long os_dst[MAX_OUTER]; long f[8];
} Geometry;

void row_offsets(const Geometry* g, long row, long* so, long* dof) {
  long a = 0, b = 0;
  for (int d = (int)g->f[5] - 1; d >= 0; --d) {
    long q = row / g->osize[d], i = row - q * g->osize[d];
    row = q;
    a += i * g->os_src[d];
    b += i * g->os_dst[d];
  }
  *so = a;
  *dof = b;
}

void split(long e, long units, long* row, long* col) {
  if (e < 0x7fffffffL && units < 0x7fffffffL) {
    uint r = (uint)e / (uint)units;
    *row = r;
    *col = (uint)e - r * (uint)units;
  } else {
    *row = e / units;
    *col = e - *row * units;
  }
}

#define STACK_KERNELS(NAME, U)                                                                  \
__kernel void items_##NAME(__global const uchar* src, __global uchar* dst, Geometry g) {        \
  const long k = get_global_id(1);                                                             \
  const long total = g.f[0] * g.f[1];                                                          \
  __global const uchar* s = src + g.src[k];                                                    \
  __global uchar* d = dst + g.f[7] + k * g.f[4];                                               \
  for (long e = get_global_id(0); e < total; e += get_global_size(0)) {                        \
    long row, col, so = 0, dof = 0;                                                            \
    split(e, g.f[1], &row, &col);                                                              \
    if (g.f[5] > 0) row_offsets(&g, row, &so, &dof);                                           \
    *(__global U*)(d + dof + col * g.f[3]) = *(__global const U*)(s + so + col * g.f[2]);      \
  }                                                                                            \
}                                                                                              \
__kernel void interleave_##NAME(__global const uchar* src, __global uchar* dst, Geometry g) {   \
  const long n = g.f[6], per_row = g.f[1] * n, total = g.f[0] * per_row;                       \
  for (long e = get_global_id(0); e < total; e += get_global_size(0)) {                        \
    long row, rest, so = 0, dof = 0;                                                           \
    split(e, per_row, &row, &rest);                                                            \
    const long j = rest / n, k = rest - j * n;                                                 \
    if (g.f[5] > 0) row_offsets(&g, row, &so, &dof);                                           \
    *(__global U*)(dst + g.f[7] + dof + j * g.f[3] + k * g.f[4]) =                             \
        *(__global const U*)(src + g.src[k] + so + j * g.f[2]);                                \
  }                                                                                            \
}
STACK_KERNELS(u16, uint4)
STACK_KERNELS(u8, uint2)
STACK_KERNELS(u4, uint)
STACK_KERNELS(u2, ushort)
STACK_KERNELS(u1, uchar)
)CLC";

struct Geometry {
  cl_long src[kMaxItems];
  cl_long osize[kMaxOuter], os_src[kMaxOuter], os_dst[kMaxOuter];
  cl_long f[8];
};
static_assert(sizeof(Geometry) == 744, "Geometry must match the OpenCL C struct");

// Joint simplification of `count` items (item 0's strides stand for all:
// the caller checked they agree) into g; src_off are their byte offsets.
void plan(const kgb_tensor* t, const cl_long* src_off, int count, const kgb_tensor* out, int dim, cl_long dst_off, int elem,
          Geometry& g) {
  cl_long dstride[KGB_MAX_RANK];
  for (int d = 0, o = 0; o < out->rank; ++o)
    if (o != dim) dstride[d++] = out->strides[o];
  cl_long sz[KGB_MAX_RANK], a[KGB_MAX_RANK], b[KGB_MAX_RANK];
  int n = 0;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    if (n > 0 && a[n - 1] == t->strides[d] * t->sizes[d] && b[n - 1] == dstride[d] * t->sizes[d]) {
      sz[n - 1] *= t->sizes[d];
      a[n - 1] = t->strides[d];
      b[n - 1] = dstride[d];
      continue;
    }
    sz[n] = t->sizes[d];
    a[n] = t->strides[d];
    b[n] = dstride[d];
    ++n;
  }
  if (n == 0) {
    sz[0] = a[0] = b[0] = 1;
    n = 1;
  }
  g = Geometry{};
  cl_long rows = 1;
  for (int d = 0; d < n - 1; ++d) {
    g.osize[d] = sz[d];
    g.os_src[d] = a[d] * elem;
    g.os_dst[d] = b[d] * elem;
    rows *= sz[d];
  }
  for (int k = 0; k < count; ++k) g.src[k] = src_off[k];
  g.f[0] = rows;
  g.f[1] = sz[n - 1];
  g.f[2] = a[n - 1] * elem;
  g.f[3] = b[n - 1] * elem;
  g.f[4] = out->strides[dim] * elem;
  g.f[5] = n - 1;
  g.f[6] = count;
  g.f[7] = dst_off;
}

// The widest unit (<= max_unit) a dense items-mode copy allows.
int widest_unit(const Geometry& g, int elem, int max_unit) {
  if (g.f[2] != elem || g.f[3] != elem) return elem;
  for (int v = max_unit; v > elem; v /= 2) {
    bool ok = g.f[7] % v == 0 && g.f[4] % v == 0 && (g.f[1] * elem) % v == 0;
    for (int k = 0; k < g.f[6] && ok; ++k) ok = g.src[k] % v == 0;
    for (int d = 0; d < g.f[5] && ok; ++d) ok = g.os_src[d] % v == 0 && g.os_dst[d] % v == 0;
    if (ok) return v;
  }
  return elem;
}

const char* unit_name(int unit) {
  switch (unit) {
    case 16: return "u16";
    case 8: return "u8";
    case 4: return "u4";
    case 2: return "u2";
    default: return "u1";
  }
}

int run(kgb_stream stream, cl_mem storage, cl_mem out_buffer, Geometry& g, int elem, int max_unit) {
  const bool interleave = g.f[4] == elem && g.f[3] == elem * g.f[6] && g.f[2] == elem && g.f[6] > 1;
  int unit = elem;
  if (!interleave) {
    unit = widest_unit(g, elem, max_unit);
    if (unit != elem) {
      g.f[1] = g.f[1] * elem / unit;
      g.f[2] = g.f[3] = unit;
    }
  }
  const std::string name = std::string(interleave ? "interleave_" : "items_") + unit_name(unit);
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", name.c_str(), &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(k, 0, sizeof storage, &storage);
  err |= clSetKernelArg(k, 1, sizeof out_buffer, &out_buffer);
  err |= clSetKernelArg(k, 2, sizeof g, &g);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_long work = interleave ? g.f[0] * g.f[1] * g.f[6] : g.f[0] * g.f[1];
  const cl_long cap = interleave ? cl_long{1} << 20 : std::max<cl_long>((cl_long{1} << 20) / g.f[6], kGroup);  // grid-stride beyond
  const cl_long groups = (std::min(work, cap) + kGroup - 1) / kGroup;
  const size_t global[2] = {static_cast<size_t>(groups) * kGroup, interleave ? 1 : static_cast<size_t>(g.f[6])};
  const size_t local[2] = {kGroup, 1};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_stack(const kgb_tensor_list* tensors, int64_t dim, kgb_tensor* out, kgb_stream stream) {
  switch (out->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (tensors->count < 1 || !tensors->items[0]) return KGB_ERR_INVALID;
  const kgb_tensor* first = tensors->items[0];
  const int rank = first->rank;
  if (out->rank != rank + 1 || dim < -(rank + 1) || dim > rank) return KGB_ERR_INVALID;
  if (dim < 0) dim += rank + 1;
  const int d = static_cast<int>(dim);
  bool uniform = true;  // every item has item 0's strides
  for (int64_t k = 0; k < tensors->count; ++k) {
    const kgb_tensor* t = tensors->items[k];
    if (!t || t->dtype != out->dtype || t->rank != rank) return KGB_ERR_INVALID;
    for (int i = 0; i < rank; ++i) {
      if (t->sizes[i] != first->sizes[i]) return KGB_ERR_INVALID;
      if (t->sizes[i] != 1 && t->strides[i] != first->strides[i]) uniform = false;
    }
  }
  for (int o = 0, i = 0; o < out->rank; ++o)
    if (out->sizes[o] != (o == d ? tensors->count : first->sizes[i++])) return KGB_ERR_INVALID;
  if (kgb_numel(out) == 0) return KGB_OK;

  const int elem = kgb_dtype_size(out->dtype);
  cl_mem storage = nullptr, offsets = nullptr, out_buffer = nullptr;
  cl_long out_off = 0;
  if (kgb_cl_tensor_list_buffers(stream, tensors, &storage, &offsets) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (kgb_cl_tensor_buffer(stream, out, &out_buffer, &out_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  // Buffers start at CL_DEVICE_MEM_BASE_ADDR_ALIGN (bits): units never exceed it.
  cl_uint align_bits = 128;
  clGetDeviceInfo(kgb_cl_get_device(stream), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, nullptr);
  int max_unit = 16;
  while (max_unit > 1 && static_cast<cl_uint>(max_unit * 8) > align_bits) max_unit /= 2;

  const cl_long step = out->strides[d];
  const int batch = uniform ? kMaxItems : 1;
  cl_long src_off[kMaxItems];
  Geometry g;
  for (int64_t k0 = 0; k0 < tensors->count; k0 += batch) {
    const int count = static_cast<int>(tensors->count - k0 < batch ? tensors->count - k0 : batch);
    for (int k = 0; k < count; ++k) {
      cl_mem item_buffer = nullptr;
      cl_long item_off = 0;
      if (kgb_cl_tensor_buffer(stream, tensors->items[k0 + k], &item_buffer, &item_off) != CL_SUCCESS || item_buffer != storage)
        return KGB_ERR_INVALID;
      src_off[k] = item_off * elem;
    }
    plan(tensors->items[k0], src_off, count, out, d, (out_off + k0 * step) * elem, elem, g);
    if (int r = run(stream, storage, out_buffer, g, elem, max_unit); r != KGB_OK) return r;
  }
  return KGB_OK;
}
