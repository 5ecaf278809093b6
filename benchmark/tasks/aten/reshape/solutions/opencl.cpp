// aten/reshape on OpenCL.
//
// The shape is completed first (one -1 takes the remaining count). Alias
// path (host only, nothing enqueued): ATen's computeStride finds strides
// that address self's elements in the new shape (self's dims, cut into
// chunks that are dense runs, are each covered by whole dims of the new
// shape), so out becomes that view: a place in self's buffer.
// Copy path: out is row-major in the new shape, which holds the same bytes as
// a row-major copy in self's shape. Self's dims are folded on the host
// (size-1 dims dropped, dims contiguous in self merged); out is row-major
// over the folded dims. Then:
//  - self's innermost stride is 1: a row copy, in 16-byte units (ulong2) when
//    every row start is 16-byte aligned on both sides;
//  - another dim of self has stride 1 (a transpose): 32 x 32 tiles through
//    local memory (33 columns), read along self's stride-1 dim and written
//    along out's rows, the other dims over the third range dimension;
//  - otherwise (stepped, broadcast): a strided gather along every row.
// On a CPU device (PoCL) the same plans run one row or one tile per
// work-item with sequential loops instead: no local memory, no barriers.
// Elements move bit for bit: the program is built per element size (-DE=...).
#include <stddef.h>
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#ifndef E
#define E uint
#endif
typedef struct { long size[8]; long src[8]; int rank; int pad; } Plan;

long outer_offset(const Plan* p, int n, long index) {
  long off = 0;
  for (int d = n - 1; d >= 0; --d) {
    long q = index / p->size[d];
    off += (index - q * p->size[d]) * p->src[d];
    index = q;
  }
  return off;
}

// GPU: rows of len units (stride `inner` in self, 1 in out); row r of out
// starts at r * len; offsets in units. Work-items run along the row.
__kernel void copy_rows(__global const E* src, long src_off, __global E* dst, long dst_off, Plan p, long rows, long len,
                        long unit_scale, long inner) {
  for (long r = get_global_id(1); r < rows; r += get_global_size(1)) {
    __global const E* from = src + src_off + outer_offset(&p, p.rank - 1, r) / unit_scale;
    __global E* to = dst + dst_off + r * len;
    for (long k = get_global_id(0); k < len; k += get_global_size(0)) to[k] = from[k * inner];
  }
}

// CPU device: one work-item per row, a sequential loop the compiler vectorises.
__kernel void copy_rows_cpu(__global const E* src, long src_off, __global E* dst, long dst_off, Plan p, long rows, long len,
                            long unit_scale, long inner) {
  for (long r = get_global_id(0); r < rows; r += get_global_size(0)) {
    __global const E* from = src + src_off + outer_offset(&p, p.rank - 1, r) / unit_scale;
    __global E* to = dst + dst_off + r * len;
    if (inner == 1) {
      for (long k = 0; k < len; ++k) to[k] = from[k];
    } else {
      for (long k = 0; k < len; ++k) to[k] = from[k * inner];
    }
  }
}

// CPU device: one work-item per 32 x 32 tile of (a, last) for one index of the
// other dims; the tile stays in cache, no local memory and no barriers.
__kernel void copy_tiles_cpu(__global const E* src, long src_off, __global E* dst, long dst_off, Plan p, int a, long work,
                             long out_stride_a) {
  const int last = p.rank - 1;
  const long na = p.size[a], nl = p.size[last], sl = p.src[last];
  const long tiles_l = (nl + 31) / 32, tiles_a = (na + 31) / 32;
  for (long w = get_global_id(0); w < work; w += get_global_size(0)) {
    const long tl = w % tiles_l, ta = (w / tiles_l) % tiles_a;
    long rest = w / (tiles_l * tiles_a), s_off = src_off, o_off = dst_off, o_stride = 1;
    for (int d = last; d >= 0; --d) {
      if (d != last && d != a) {
        long i = rest % p.size[d];
        rest /= p.size[d];
        s_off += i * p.src[d];
        o_off += i * o_stride;
      }
      o_stride *= p.size[d];
    }
    const long a0 = ta * 32, a1 = min(a0 + 32, na), l0 = tl * 32, l1 = min(l0 + 32, nl);
    for (long l = l0; l < l1; ++l) {
      __global const E* from = src + s_off + l * sl;
      __global E* to = dst + o_off + l;
      for (long i = a0; i < a1; ++i) to[i * out_stride_a] = from[i];
    }
  }
}

// Dim a of self has stride 1; the last dim (out's rows) has stride sl in self.
__kernel void copy_transposed(__global const E* src, long src_off, __global E* dst, long dst_off, Plan p, int a,
                              long batches, long out_stride_a) {
  __local E tile[32][33];
  const int last = p.rank - 1;
  const long na = p.size[a], nl = p.size[last], sl = p.src[last];
  const long a0 = (long)get_group_id(1) * 32, l0 = (long)get_group_id(0) * 32;
  const int tx = get_local_id(0), ty = get_local_id(1);
  for (long b = get_group_id(2); b < batches; b += get_num_groups(2)) {
    long rest = b, s_off = src_off, o_off = dst_off, o_stride = 1;
    for (int d = last; d >= 0; --d) {
      if (d != last && d != a) {
        long i = rest % p.size[d];
        rest /= p.size[d];
        s_off += i * p.src[d];
        o_off += i * o_stride;
      }
      o_stride *= p.size[d];
    }
    for (int r = ty; r < 32; r += 8) {  // loads run along a
      long l = l0 + r, i = a0 + tx;
      if (l < nl && i < na) tile[r][tx] = src[s_off + l * sl + i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = ty; r < 32; r += 8) {  // stores run along out's rows
      long i = a0 + r, l = l0 + tx;
      if (l < nl && i < na) dst[o_off + i * out_stride_a + l] = tile[tx][r];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

)CLC";

struct Plan {
  cl_long size[8] = {}, src[8] = {};
  cl_int rank = 0, pad = 0;
};
static_assert(sizeof(Plan) == 136, "Plan must match the OpenCL C struct");

// ATen's infer_size: at most one -1; the product must be numel.
bool infer_shape(kgb_int_list shape, int64_t numel, int64_t* sizes) {
  if (shape.count > KGB_MAX_RANK) return false;
  int64_t known = 1, infer = -1;
  for (int64_t d = 0; d < shape.count; ++d) {
    sizes[d] = shape.values[d];
    if (sizes[d] == -1) {
      if (infer >= 0) return false;
      infer = d;
    } else if (sizes[d] < 0) {
      return false;
    } else {
      known *= sizes[d];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) return false;
    sizes[infer] = numel / known;
    return true;
  }
  return known == numel;
}

// ATen's computeStride: strides for the new shape over self's storage, or false.
bool compute_stride(const kgb_tensor* t, const int64_t* shape, int rank, int64_t* strides) {
  if (t->rank == 0) {
    for (int d = 0; d < rank; ++d) strides[d] = 1;
    return true;
  }
  const int64_t numel = kgb_numel(t);
  if (numel == 0) {
    bool same = rank == t->rank;
    for (int d = 0; same && d < rank; ++d) same = shape[d] == t->sizes[d];
    for (int d = rank - 1; d >= 0; --d)
      strides[d] = same ? t->strides[d] : d == rank - 1 ? 1 : (shape[d + 1] > 1 ? shape[d + 1] : 1) * strides[d + 1];
    return true;
  }
  int view_d = rank - 1;
  int64_t base = t->strides[t->rank - 1], tensor_numel = 1, view_numel = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    tensor_numel *= t->sizes[d];
    if (d == 0 || (t->sizes[d - 1] != 1 && t->strides[d - 1] != tensor_numel * base)) {  // end of a chunk
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * base;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        base = t->strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Plan fold(const kgb_tensor* t) {
  Plan p;
  for (int d = 0; d < t->rank; ++d) {
    if (t->sizes[d] == 1) continue;
    if (p.rank > 0 && p.src[p.rank - 1] == t->strides[d] * t->sizes[d]) {
      p.size[p.rank - 1] *= t->sizes[d];
      p.src[p.rank - 1] = t->strides[d];
      continue;
    }
    p.size[p.rank] = t->sizes[d];
    p.src[p.rank] = t->strides[d];
    ++p.rank;
  }
  if (p.rank == 0) {
    p.size[0] = 1;
    p.rank = 1;
  }
  return p;
}

const char* options_for(int32_t bytes) {
  switch (bytes) {
    case 1: return "-cl-std=CL1.2 -DE=uchar";
    case 2: return "-cl-std=CL1.2 -DE=ushort";
    case 4: return "-cl-std=CL1.2 -DE=uint";
    case 8: return "-cl-std=CL1.2 -DE=ulong";
    case 16: return "-cl-std=CL1.2 -DE=ulong2";
    default: return nullptr;
  }
}

size_t round_up(int64_t n, size_t to) { return (static_cast<size_t>(n < 1 ? 1 : n) + to - 1) / to * to; }

}  // namespace

extern "C" int kgb_aten_reshape(const kgb_tensor* self, kgb_int_list shape, kgb_tensor* out, kgb_stream stream) {
  if (self->dtype != out->dtype) return KGB_ERR_INVALID;
  int64_t sizes[KGB_MAX_RANK], strides[KGB_MAX_RANK];
  if (!infer_shape(shape, kgb_numel(self), sizes)) return KGB_ERR_INVALID;
  const int rank = static_cast<int>(shape.count);
  if (out->rank != rank) return KGB_ERR_INVALID;
  for (int d = 0; d < rank; ++d)
    if (out->sizes[d] != sizes[d]) return KGB_ERR_INVALID;
  if (compute_stride(self, sizes, rank, strides)) {  // ATen returns a view: out becomes it, nothing runs
    out->data = self->data;
    for (int d = 0; d < rank; ++d) out->strides[d] = strides[d];
    out->storage_offset = self->storage_offset;
    out->flags = self->flags;
    return KGB_OK;
  }
  // The copy: out is row-major in the new shape, the same bytes as a row-major copy in self's shape.
  if (!kgb_is_contiguous(out)) return KGB_ERR_INVALID;
  const int32_t elem = kgb_dtype_size(self->dtype);
  if (!options_for(elem)) return KGB_ERR_UNSUPPORTED;
  cl_mem src = nullptr, dst = nullptr;
  cl_long src_off = 0, dst_off = 0;
  if (kgb_cl_tensor_buffer(stream, self, &src, &src_off) != CL_SUCCESS ||
      kgb_cl_tensor_buffer(stream, out, &dst, &dst_off) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  Plan p = fold(self);
  const int last = p.rank - 1;
  cl_long numel = 1;
  for (int d = 0; d < p.rank; ++d) numel *= p.size[d];
  cl_kernel k = nullptr;
  cl_int err = CL_SUCCESS;
  auto args = [&](cl_uint i, const auto& v) {
    if (err == CL_SUCCESS) err = clSetKernelArg(k, i, sizeof v, &v);
  };

  const bool cpu = kgb_cl_device_type(stream) == CL_DEVICE_TYPE_CPU;

  // A transpose: some dim other than the last has stride 1 in self.
  for (cl_int a = last - 1; a >= 0 && p.src[last] != 1; --a) {
    if (p.src[a] != 1 || p.size[a] < 8) continue;
    cl_long batches = 1, out_stride_a = 1;
    for (int d = 0; d < last; ++d)
      if (d != a) batches *= p.size[d];
    for (int d = a + 1; d <= last; ++d) out_stride_a *= p.size[d];
    const cl_long tiles = (p.size[last] + 31) / 32 * ((p.size[a] + 31) / 32);
    if (cpu) {
      const cl_long work = batches * tiles;
      if (kgb_cl_get_kernel(stream, kSource, options_for(elem), "copy_tiles_cpu", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
      args(0, src), args(1, src_off), args(2, dst), args(3, dst_off), args(4, p), args(5, a), args(6, work), args(7, out_stride_a);
      if (err != CL_SUCCESS) return KGB_ERR_INVALID;
      const size_t global = static_cast<size_t>(work < (1 << 20) ? work : (1 << 20));
      return kgb_cl_enqueue(stream, k, 1, &global, nullptr) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
    }
    if (kgb_cl_get_kernel(stream, kSource, options_for(elem), "copy_transposed", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
    args(0, src), args(1, src_off), args(2, dst), args(3, dst_off), args(4, p), args(5, a), args(6, batches), args(7, out_stride_a);
    if (err != CL_SUCCESS) return KGB_ERR_INVALID;
    const size_t local[3] = {32, 8, 1};
    const size_t global[3] = {round_up(p.size[last], 32), round_up(p.size[a], 32) / 32 * 8,
                              static_cast<size_t>(batches < 65535 ? batches : 65535)};
    return kgb_cl_enqueue(stream, k, 3, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }

  // Rows: unit stride (a plain row copy) or a strided gather along the row.
  const cl_long len = p.size[last], rows = numel / len, inner = p.src[last];
  bool vec = inner == 1 && elem < 16 && (len * elem) % 16 == 0 && (src_off * elem) % 16 == 0 && (dst_off * elem) % 16 == 0;
  for (int d = 0; d < last && vec; ++d) vec = (p.src[d] * elem) % 16 == 0;
  const cl_long scale = vec ? 16 / elem : 1, units = len / scale;
  if (kgb_cl_get_kernel(stream, kSource, options_for(vec ? 16 : elem), cpu ? "copy_rows_cpu" : "copy_rows", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  const cl_long s_units = src_off / scale, d_units = dst_off / scale;
  args(0, src), args(1, s_units), args(2, dst), args(3, d_units), args(4, p), args(5, rows), args(6, units), args(7, scale);
  args(8, inner);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  if (cpu) {
    const size_t global = static_cast<size_t>(rows < (1 << 20) ? rows : (1 << 20));
    return kgb_cl_enqueue(stream, k, 1, &global, nullptr) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }
  const size_t local[2] = {64, 1};
  const size_t global[2] = {round_up(units < 4096 ? units : 4096, 64), static_cast<size_t>(rows < 65535 ? rows : 65535)};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
