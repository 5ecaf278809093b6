// aten/rot90 in OpenCL. A rotation is a copy of self read through another
// view: in out's index space self has out's sizes and, at d0 and d1, the
// strides of the other dim, one of them negated (k = 1: -stride(d1) at d0,
// stride(d0) at d1, starting at element S1-1 of d1; k = 2: both dims
// reversed; k = 3: stride(d1) at d0, -stride(d0) at d1; k = 0: self as is).
// Elements move bit for bit, so the kernels exist per element size.
//
// The host simplifies the copy (size-1 dims dropped, dims contiguous in both
// the source view and out merged, negative strides included), then:
// - when out's densest dim is also the source's densest one (k = 0, k = 2,
//   a plane that leaves the inner dim alone), an elementwise kernel walks
//   out in order (neighbouring work-items, neighbouring out elements);
// - otherwise (a quarter turn of the two inner dims: a transpose with one
//   dim reversed) 32 x 32 tiles go through local memory (padded against bank
//   conflicts), read along the source's dense dim and written along out's;
//   the third NDRange dim walks the remaining outer dims.
#include <stdint.h>

#include <string>

#include "kgb_opencl.h"

namespace {

constexpr size_t kTile = 32, kRows = 8, kGroup = 256;

const char kSource[] = R"CLC(
#define TILE 32
#define ROWS 8
// Elementwise: out's densest dim last; strides in elements.
typedef struct { long size[8]; long vs[8]; long os[8]; long rank; long total; } Geometry;
// Tiles: outer dims, then the source-dense dim p and out-dense dim i.
typedef struct { long osize[8]; long ovs[8]; long oos[8]; long outer; long outer_count;
                 long psize, pvs, pos, isize, ivs, ios; } Tiles;

#define ROT_KERNELS(NAME, U)                                                                     \
__kernel void elementwise_##NAME(__global const U* src, long src_off, __global U* dst, long dst_off, \
                                 Geometry g) {                                                  \
  for (long e = get_global_id(0); e < g.total; e += get_global_size(0)) {                       \
    long r = e, a = 0, b = 0;                                                                   \
    for (int d = (int)g.rank - 1; d >= 0; --d) {                                                \
      long q = d == 0 ? 0 : r / g.size[d], i = r - q * g.size[d];                               \
      r = q;                                                                                    \
      a += i * g.vs[d];                                                                         \
      b += i * g.os[d];                                                                         \
    }                                                                                           \
    dst[dst_off + b] = src[src_off + a];                                                        \
  }                                                                                             \
}                                                                                               \
__kernel __attribute__((reqd_work_group_size(TILE, ROWS, 1)))                                   \
void tiles_##NAME(__global const U* src, long src_off, __global U* dst, long dst_off, Tiles t) { \
  __local U tile[TILE][TILE + 1];                                                               \
  const long i0 = (long)get_group_id(0) * TILE, p0 = (long)get_group_id(1) * TILE;             \
  const int tx = get_local_id(0), ty = get_local_id(1);                                        \
  for (long o = get_group_id(2); o < t.outer_count; o += get_num_groups(2)) {                   \
    long r = o, so = src_off, dof = dst_off;                                                    \
    for (int d = (int)t.outer - 1; d >= 0; --d) {                                               \
      long q = r / t.osize[d], i = r - q * t.osize[d];                                          \
      r = q;                                                                                    \
      so += i * t.ovs[d];                                                                       \
      dof += i * t.oos[d];                                                                      \
    }                                                                                           \
    const long p = p0 + tx;                                                                     \
    for (int k = 0; k < TILE; k += ROWS) {                                                      \
      const long i = i0 + ty + k;                                                               \
      if (p < t.psize && i < t.isize) tile[ty + k][tx] = src[so + p * t.pvs + i * t.ivs];       \
    }                                                                                           \
    barrier(CLK_LOCAL_MEM_FENCE);                                                               \
    const long i = i0 + tx;                                                                     \
    for (int k = 0; k < TILE; k += ROWS) {                                                      \
      const long pp = p0 + ty + k;                                                              \
      if (pp < t.psize && i < t.isize) dst[dof + pp * t.pos + i * t.ios] = tile[tx][ty + k];    \
    }                                                                                           \
    barrier(CLK_LOCAL_MEM_FENCE);                                                               \
  }                                                                                             \
}
ROT_KERNELS(u1, uchar)
ROT_KERNELS(u2, ushort)
ROT_KERNELS(u4, uint)
ROT_KERNELS(u8, ulong)
)CLC";

struct Geometry {
  cl_long size[8], vs[8], os[8], rank, total;
};
struct Tiles {
  cl_long osize[8], ovs[8], oos[8], outer, outer_count;
  cl_long psize, pvs, pos, isize, ivs, ios;
};
static_assert(sizeof(Geometry) == 26 * 8 && sizeof(Tiles) == 32 * 8, "descriptors must match the OpenCL C structs");

struct Dim {
  cl_long size, vs, os;
};
inline cl_long magnitude(cl_long v) { return v < 0 ? -v : v; }

const char* suffix(int elem) {
  switch (elem) {
    case 1: return "u1";
    case 2: return "u2";
    case 4: return "u4";
    default: return "u8";
  }
}

}  // namespace

extern "C" int kgb_aten_rot90(const kgb_tensor* self, int64_t k, kgb_int_list dims, kgb_tensor* out, kgb_stream stream) {
  switch (self->dtype) {
    case KGB_F32: case KGB_F64: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: case KGB_BOOL: case KGB_C64: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  const int rank = self->rank;
  if (out->dtype != self->dtype || out->rank != rank || rank < 2 || dims.count != 2) return KGB_ERR_INVALID;
  const int64_t a = dims.values[0], b = dims.values[1];
  if (a < -rank || a >= rank || b < -rank || b >= rank || a == b || a - b == rank || b - a == rank) return KGB_ERR_INVALID;
  const int d0 = static_cast<int>(a < 0 ? a + rank : a), d1 = static_cast<int>(b < 0 ? b + rank : b);
  const int turns = static_cast<int>(((k % 4) + 4) % 4);
  for (int d = 0; d < rank; ++d) {
    const int from = turns % 2 == 1 && d == d0 ? d1 : turns % 2 == 1 && d == d1 ? d0 : d;
    if (out->sizes[d] != self->sizes[from]) return KGB_ERR_INVALID;
  }
  if (kgb_numel(out) == 0) return KGB_OK;

  // self in out's index space.
  cl_long vs[KGB_MAX_RANK], base = 0;
  for (int d = 0; d < rank; ++d) vs[d] = self->strides[d];
  const cl_long s0 = self->sizes[d0], s1 = self->sizes[d1], t0 = self->strides[d0], t1 = self->strides[d1];
  if (turns == 1) {
    vs[d0] = -t1, vs[d1] = t0, base = (s1 - 1) * t1;
  } else if (turns == 2) {
    vs[d0] = -t0, vs[d1] = -t1, base = (s0 - 1) * t0 + (s1 - 1) * t1;
  } else if (turns == 3) {
    vs[d0] = t1, vs[d1] = -t0, base = (s0 - 1) * t0;
  }
  Dim dm[KGB_MAX_RANK];
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    if (out->sizes[d] == 1) continue;
    const Dim next{out->sizes[d], vs[d], out->strides[d]};
    if (n > 0 && dm[n - 1].vs == next.vs * next.size && dm[n - 1].os == next.os * next.size) {
      dm[n - 1] = {dm[n - 1].size * next.size, next.vs, next.os};
      continue;
    }
    dm[n++] = next;
  }
  if (n == 0) dm[n++] = {1, 1, 1};

  cl_mem self_buffer = nullptr, out_buffer = nullptr;
  cl_long self_off = 0, out_off = 0;
  if (kgb_cl_tensor_buffer(stream, self, &self_buffer, &self_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (kgb_cl_tensor_buffer(stream, out, &out_buffer, &out_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_long src_off = self_off + base;
  const int elem = kgb_dtype_size(self->dtype);

  // Out's densest dim i; the source's densest dim p among the others.
  int i = 0;
  for (int d = 1; d < n; ++d)
    if (magnitude(dm[d].os) <= magnitude(dm[i].os)) i = d;
  int p = -1;
  for (int d = 0; d < n; ++d)
    if (d != i && (p < 0 || magnitude(dm[d].vs) < magnitude(dm[p].vs))) p = d;
  const bool rows = p < 0 || magnitude(dm[i].vs) <= magnitude(dm[p].vs) || dm[i].size < 4;

  cl_kernel kern = nullptr;
  const std::string name = std::string(rows ? "elementwise_" : "tiles_") + suffix(elem);
  if (kgb_cl_get_kernel(stream, kSource, "-cl-std=CL1.2", name.c_str(), &kern) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = clSetKernelArg(kern, 0, sizeof self_buffer, &self_buffer);
  err |= clSetKernelArg(kern, 1, sizeof src_off, &src_off);
  err |= clSetKernelArg(kern, 2, sizeof out_buffer, &out_buffer);
  err |= clSetKernelArg(kern, 3, sizeof out_off, &out_off);
  if (rows) {
    Geometry g{};
    g.total = 1;
    for (int d = 0; d <= n; ++d) {
      const int from = d < n ? (d == i ? -1 : d) : i;  // i goes last
      if (from < 0) continue;
      g.size[g.rank] = dm[from].size;
      g.vs[g.rank] = dm[from].vs;
      g.os[g.rank] = dm[from].os;
      g.total *= dm[from].size;
      ++g.rank;
    }
    err |= clSetKernelArg(kern, 4, sizeof g, &g);
    if (err != CL_SUCCESS) return KGB_ERR_INVALID;
    const cl_long groups = (g.total + static_cast<cl_long>(kGroup) - 1) / static_cast<cl_long>(kGroup);
    const size_t global = static_cast<size_t>(groups < 4096 ? groups : 4096) * kGroup, local = kGroup;
    return kgb_cl_enqueue(stream, kern, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }
  Tiles t{};
  t.outer_count = 1;
  for (int d = 0; d < n; ++d)
    if (d != i && d != p) {
      t.osize[t.outer] = dm[d].size;
      t.ovs[t.outer] = dm[d].vs;
      t.oos[t.outer] = dm[d].os;
      t.outer_count *= dm[d].size;
      ++t.outer;
    }
  t.psize = dm[p].size, t.pvs = dm[p].vs, t.pos = dm[p].os;
  t.isize = dm[i].size, t.ivs = dm[i].vs, t.ios = dm[i].os;
  err |= clSetKernelArg(kern, 4, sizeof t, &t);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t gz = static_cast<size_t>(t.outer_count < 1024 ? t.outer_count : 1024);
  const size_t global[3] = {static_cast<size_t>((t.isize + kTile - 1) / kTile) * kTile,
                            static_cast<size_t>((t.psize + kTile - 1) / kTile) * kRows, gz};
  const size_t local[3] = {kTile, kRows, 1};
  return kgb_cl_enqueue(stream, kern, 3, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
