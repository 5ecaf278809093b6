// aten/resolve_neg on OpenCL.
//
// No neg bit: ATen returns self, so out becomes self's view (flags carried)
// and nothing is enqueued. Neg bit set: out gets the logical values; for
// floating and complex dtypes exact sign-bit flips of the stored ones (every
// part's sign; with a conj bit as well only the real part's), an XOR with a
// per-element mask; i64 negates in two's complement. The elements move from
// self's view into
// out's layout (self's strides when dense, else row-major). The host puts
// the dims of both views in out's order and folds them (a dense view becomes
// one block), then
//  - out's innermost stride 1 and self's stride 1 on another dim (a
//    transpose): 32 x 32 tiles through local memory on GPUs;
//  - otherwise rows, in 16-byte words with the mask repeated when aligned.
// On a CPU device (PoCL) one tile, row or row chunk per work-item, with
// sequential loops: no local memory, no barriers.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kgb_opencl.h"

namespace {

const char kSource[] = R"CLC(
#ifndef E
#define E uint
#endif
// The element operation: an XOR of sign bits, or two's complement negation (i64).
#ifdef NEGATE
#define OP(v) ((E)0 - (v))
#else
#define OP(v) ((v) ^ mask)
#endif
typedef struct { long size[8]; long src[8]; long dst[8]; int rank; int pad; } Plan;

// Offsets of outer index `index` over the first n dims, skipping dim `skip`.
void outer_offsets(const Plan* p, int n, int skip, long index, long* s, long* o) {
  long a = 0, b = 0;
  for (int d = n - 1; d >= 0; --d) {
    if (d == skip) continue;
    long q = index / p->size[d], i = index - q * p->size[d];
    index = q;
    a += i * p->src[d];
    b += i * p->dst[d];
  }
  *s = a;
  *o = b;
}

// GPU: work-items along the row, rows over the second range dimension.
__kernel void flip_rows(__global const E* src, long src_off, __global E* dst, long dst_off, Plan p, long rows, long len,
                        long scale, long si, long di, E mask) {
  for (long r = get_global_id(1); r < rows; r += get_global_size(1)) {
    long s, o;
    outer_offsets(&p, p.rank - 1, -1, r, &s, &o);
    __global const E* from = src + src_off + s / scale;
    __global E* to = dst + dst_off + o / scale;
    for (long k = get_global_id(0); k < len; k += get_global_size(0)) to[k * di] = OP(from[k * si]);
  }
}

// CPU device: one work-item per row, or per chunk of `chunk` units of a row.
__kernel void flip_rows_cpu(__global const E* src, long src_off, __global E* dst, long dst_off, Plan p, long rows, long len,
                            long scale, long si, long di, long chunk, E mask) {
  const long chunks = (len + chunk - 1) / chunk;
  for (long w = get_global_id(0); w < rows * chunks; w += get_global_size(0)) {
    const long r = w / chunks, k0 = (w - r * chunks) * chunk, k1 = min(k0 + chunk, len);
    long s, o;
    outer_offsets(&p, p.rank - 1, -1, r, &s, &o);
    __global const E* from = src + src_off + s / scale;
    __global E* to = dst + dst_off + o / scale;
    if (si == 1 && di == 1) {
      for (long k = k0; k < k1; ++k) to[k] = OP(from[k]);
    } else {
      for (long k = k0; k < k1; ++k) to[k * di] = OP(from[k * si]);
    }
  }
}

// GPU: dim a of self has stride 1, out's rows (the last dim) stride 1.
__kernel void flip_transposed(__global const E* src, long src_off, __global E* dst, long dst_off, Plan p, int a, long batches, E mask) {
  __local E tile[32][33];
  const int last = p.rank - 1;
  const long na = p.size[a], nl = p.size[last], sl = p.src[last], da = p.dst[a];
  const long a0 = (long)get_group_id(1) * 32, l0 = (long)get_group_id(0) * 32;
  const int tx = get_local_id(0), ty = get_local_id(1);
  for (long b = get_group_id(2); b < batches; b += get_num_groups(2)) {
    long s, o;
    outer_offsets(&p, last, a, b, &s, &o);
    for (int r = ty; r < 32; r += 8) {
      long l = l0 + r, i = a0 + tx;
      if (l < nl && i < na) tile[r][tx] = src[src_off + s + l * sl + i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = ty; r < 32; r += 8) {
      long i = a0 + r, l = l0 + tx;
      if (l < nl && i < na) dst[dst_off + o + i * da + l] = OP(tile[tx][r]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// CPU device: one work-item per 32 x 32 tile.
__kernel void flip_tiles_cpu(__global const E* src, long src_off, __global E* dst, long dst_off, Plan p, int a, long work, E mask) {
  const int last = p.rank - 1;
  const long na = p.size[a], nl = p.size[last], sl = p.src[last], da = p.dst[a];
  const long tiles_l = (nl + 31) / 32, tiles_a = (na + 31) / 32;
  for (long w = get_global_id(0); w < work; w += get_global_size(0)) {
    const long tl = w % tiles_l, ta = (w / tiles_l) % tiles_a;
    long s, o;
    outer_offsets(&p, last, a, w / (tiles_l * tiles_a), &s, &o);
    const long a0 = ta * 32, a1 = min(a0 + 32, na), l0 = tl * 32, l1 = min(l0 + 32, nl);
    for (long l = l0; l < l1; ++l) {
      __global const E* from = src + src_off + s + l * sl;
      __global E* to = dst + dst_off + o + l;
      for (long i = a0; i < a1; ++i) to[i * da] = OP(from[i]);
    }
  }
}
)CLC";

struct Plan {
  cl_long size[8] = {}, src[8] = {}, dst[8] = {};
  cl_int rank = 0, pad = 0;
};
static_assert(sizeof(Plan) == 200, "Plan must match the OpenCL C struct");

Plan fold(const kgb_tensor* from, const kgb_tensor* to) {
  int order[KGB_MAX_RANK], n = 0;
  for (int d = 0; d < to->rank; ++d)
    if (to->sizes[d] != 1) order[n++] = d;
  for (int i = 1; i < n; ++i)  // out's strides descending, stable
    for (int j = i; j > 0 && to->strides[order[j]] > to->strides[order[j - 1]]; --j) {
      const int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  Plan p;
  for (int i = 0; i < n; ++i) {
    const int d = order[i];
    const cl_long size = to->sizes[d], s = from->strides[d], o = to->strides[d];
    if (p.rank > 0 && p.src[p.rank - 1] == s * size && p.dst[p.rank - 1] == o * size) {
      p.size[p.rank - 1] *= size;
      p.src[p.rank - 1] = s;
      p.dst[p.rank - 1] = o;
      continue;
    }
    p.size[p.rank] = size;
    p.src[p.rank] = s;
    p.dst[p.rank] = o;
    ++p.rank;
  }
  if (p.rank == 0) {
    p.size[0] = 1;
    p.rank = 1;
  }
  return p;
}

const char* options_for(int32_t bytes, bool negate) {
  if (negate) return bytes == 8 ? "-cl-std=CL1.2 -DE=ulong -DNEGATE" : nullptr;
  switch (bytes) {
    case 2: return "-cl-std=CL1.2 -DE=ushort";
    case 4: return "-cl-std=CL1.2 -DE=uint";
    case 8: return "-cl-std=CL1.2 -DE=ulong";
    case 16: return "-cl-std=CL1.2 -DE=ulong2";
    default: return nullptr;
  }
}

// The mask as kernel argument bytes: `bytes` wide, or repeated over 16 bytes.
struct Mask {
  unsigned char bytes[16] = {};
  size_t size = 0;
};
Mask mask_of(const unsigned char* element_mask, int32_t elem, int32_t width) {
  Mask m;
  m.size = static_cast<size_t>(width);
  for (int32_t at = 0; at < width; at += elem) memcpy(m.bytes + at, element_mask, static_cast<size_t>(elem));
  return m;
}

size_t round_up(cl_long n, size_t to) { return (static_cast<size_t>(n < 1 ? 1 : n) + to - 1) / to * to; }
size_t capped(cl_long n, cl_long cap) { return static_cast<size_t>(n < 1 ? 1 : n < cap ? n : cap); }

// Moves self's elements into out's layout through OP: `element_mask` is the
// XOR mask of one element (ignored when negating i64).
int flip(const kgb_tensor* self, kgb_tensor* out, const unsigned char* element_mask, bool negate, kgb_stream stream) {
  const int32_t elem = kgb_dtype_size(self->dtype);
  if (!options_for(elem, negate)) return KGB_ERR_UNSUPPORTED;
  cl_mem src = nullptr, dst = nullptr;
  cl_long src_off = 0, dst_off = 0;
  if (kgb_cl_tensor_buffer(stream, self, &src, &src_off) != CL_SUCCESS ||
      kgb_cl_tensor_buffer(stream, out, &dst, &dst_off) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  Plan p = fold(self, out);
  const int last = p.rank - 1;
  const bool cpu = kgb_cl_device_type(stream) == CL_DEVICE_TYPE_CPU;
  cl_kernel k = nullptr;
  cl_int err = CL_SUCCESS;
  auto arg = [&](cl_uint i, const auto& v) {
    if (err == CL_SUCCESS) err = clSetKernelArg(k, i, sizeof v, &v);
  };
  auto mask_arg = [&](cl_uint i, const Mask& m) {
    if (err == CL_SUCCESS) err = clSetKernelArg(k, i, m.size, m.bytes);
  };
  const Mask element = mask_of(element_mask, elem, elem);

  if (p.dst[last] == 1 && p.src[last] != 1) {
    for (cl_int a = last - 1; a >= 0; --a) {
      if (p.src[a] != 1 || p.size[a] < 8) continue;
      cl_long batches = 1;
      for (int d = 0; d < last; ++d)
        if (d != a) batches *= p.size[d];
      const char* name = cpu ? "flip_tiles_cpu" : "flip_transposed";
      if (kgb_cl_get_kernel(stream, kSource, options_for(elem, negate), name, &k) != CL_SUCCESS) return KGB_ERR_INVALID;
      const cl_long work = batches * ((p.size[last] + 31) / 32) * ((p.size[a] + 31) / 32);
      arg(0, src), arg(1, src_off), arg(2, dst), arg(3, dst_off), arg(4, p), arg(5, a), arg(6, cpu ? work : batches);
      mask_arg(7, element);
      if (err != CL_SUCCESS) return KGB_ERR_INVALID;
      if (cpu) {
        const size_t global = capped(work, 1 << 20);
        return kgb_cl_enqueue(stream, k, 1, &global, nullptr) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
      }
      const size_t local[3] = {32, 8, 1};
      const size_t global[3] = {round_up(p.size[last], 32), round_up(p.size[a], 32) / 32 * 8, capped(batches, 65535)};
      return kgb_cl_enqueue(stream, k, 3, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
    }
  }

  const cl_long len = p.size[last], si = p.src[last], di = p.dst[last];
  cl_long rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.size[d];
  // 16-byte words (the mask repeated) when every row start is 16-byte aligned on both sides.
  bool vec = !negate && elem < 16 && si == 1 && di == 1 && (len * elem) % 16 == 0 && (src_off * elem) % 16 == 0 &&
             (dst_off * elem) % 16 == 0;
  for (int d = 0; d < last && vec; ++d) vec = (p.src[d] * elem) % 16 == 0 && (p.dst[d] * elem) % 16 == 0;
  const cl_long scale = vec ? 16 / elem : 1, units = len / scale;
  const cl_long s_units = src_off / scale, d_units = dst_off / scale;
  if (kgb_cl_get_kernel(stream, kSource, options_for(vec ? 16 : elem, negate), cpu ? "flip_rows_cpu" : "flip_rows", &k) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  arg(0, src), arg(1, s_units), arg(2, dst), arg(3, d_units), arg(4, p), arg(5, rows), arg(6, units), arg(7, scale);
  arg(8, si), arg(9, di);
  const Mask word = mask_of(element_mask, elem, vec ? 16 : elem);
  if (cpu) {
    const cl_long chunk = 16384;  // long rows (a folded block) split across the device's cores
    arg(10, chunk);
    mask_arg(11, word);
    if (err != CL_SUCCESS) return KGB_ERR_INVALID;
    const size_t global = capped(rows * ((units + chunk - 1) / chunk), 4096);
    return kgb_cl_enqueue(stream, k, 1, &global, nullptr) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
  }
  mask_arg(10, word);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local[2] = {256, 1};
  const cl_long per_row = rows > 1 ? 16384 : (1 << 22);
  const size_t global[2] = {round_up(units < per_row ? units : per_row, 256), capped(rows, 65535)};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_resolve_neg(const kgb_tensor* self, kgb_tensor* out, kgb_stream stream) {
  if (self->rank != out->rank || self->dtype != out->dtype) return KGB_ERR_INVALID;
  if (!(self->flags & KGB_TENSOR_NEG)) {  // ATen returns self: out becomes the alias, nothing is enqueued
    out->data = self->data;
    for (int d = 0; d < self->rank; ++d) {
      out->sizes[d] = self->sizes[d];
      out->strides[d] = self->strides[d];
    }
    out->storage_offset = self->storage_offset;
    out->flags = self->flags;
    return KGB_OK;
  }
  if (kgb_numel(self) == 0) return KGB_OK;
  const bool conj = (self->flags & KGB_TENSOR_CONJ) != 0;
  const cl_ulong sign = 0x8000000000000000ull;
  switch (self->dtype) {
    case KGB_F16: case KGB_BF16: {
      const cl_ushort mask = 0x8000;
      return flip(self, out, reinterpret_cast<const unsigned char*>(&mask), false, stream);
    }
    case KGB_F32: {
      const cl_uint mask = 0x80000000u;
      return flip(self, out, reinterpret_cast<const unsigned char*>(&mask), false, stream);
    }
    case KGB_F64: return flip(self, out, reinterpret_cast<const unsigned char*>(&sign), false, stream);
    case KGB_I64: return flip(self, out, reinterpret_cast<const unsigned char*>(&sign), true, stream);
    case KGB_C64: {  // little-endian: re in the low 32 bits, im in the high; conj + neg flips re only
      const cl_ulong mask = conj ? 0x80000000ull : 0x8000000080000000ull;
      return flip(self, out, reinterpret_cast<const unsigned char*>(&mask), false, stream);
    }
    case KGB_C128: {
      const cl_ulong mask[2] = {sign, conj ? 0 : sign};
      return flip(self, out, reinterpret_cast<const unsigned char*>(mask), false, stream);
    }
    default: return KGB_ERR_UNSUPPORTED;
  }
}
