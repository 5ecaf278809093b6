// aten/scatter in OpenCL: the four overloads (src, value, reduce,
// value_reduce) share one engine.
//  1. out = self: clEnqueueCopyBuffer when both are dense, else a strided
//     copy kernel.
//  2. Two positions of index can only name the same element of out when
//     they differ in nothing but their dim coordinate, so every work-item
//     owns whole lines along dim and walks its line in order: no atomics
//     (OpenCL 1.2 has none for floats), the same bits on every run. A 2-D
//     range: dimension 0 runs along index's last dimension when that is not
//     dim (neighbouring work-items read neighbouring index and src elements),
//     dimension 1 over every other coordinate. 16-bit floats combine in float
//     with one rounding per update; integers wrap.
// The program is built per dtype, mode (set, add, multiply) and source (src
// tensor or scalar value). Index values outside [0, size(self, dim)) are
// skipped (reporting them would need a read-back on every call).
#include <stdint.h>

#include <string>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 128;

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef DT
#define DT 6
#endif
#ifndef MODE
#define MODE 0
#endif
#ifndef HAS_SRC
#define HAS_SRC 1
#endif
#if DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double S; typedef double C;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif DT == 4
typedef ushort S; typedef float C;
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#elif DT == 5
typedef ushort S; typedef float C;
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#elif DT == 2
typedef int S; typedef uint C;
#define LOAD(v) ((uint)(v))
#define STORE(v) ((int)(v))
#elif DT == 3
typedef long S; typedef ulong C;
#define LOAD(v) ((ulong)(v))
#define STORE(v) ((long)(v))
#else
typedef float S; typedef float C;
#define LOAD(v) (v)
#define STORE(v) (v)
#endif

typedef struct {
  long size[8]; long a[8]; long b[8];
} Copy;

// out = self over the merged dims of self (a: out strides, b: self strides).
__kernel void copy_self(__global S* out, long o_off, __global const S* self, long s_off, Copy g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long oo = o_off, so = s_off;
  for (int d = rank - 1; d >= 0; --d) {
    long q = i / g.size[d], c = i - q * g.size[d];
    i = q;
    oo += c * g.a[d];
    so += c * g.b[d];
  }
  out[oo] = self[so];
}

// The line coordinates (every index dim but dim and, when dim is not last,
// the last): sizes and strides in index, src and out.
typedef struct {
  long size[8]; long is[8]; long ss[8]; long os[8];
} Lines;

__kernel void scatter_lines(__global S* out, long o_off, __global const long* index, long i_off, __global const S* src,
                            long s_off, Lines g, int row_rank, long J, long rows, long K, long ij, long sj, long oj,
                            long ik, long sk, long out_dim_stride, long len, C value) {
  long j = get_global_id(0), row = get_global_id(1);
  if (j >= J || row >= rows) return;
  long io = i_off + j * ij, so = s_off + j * sj, oo = o_off + j * oj;
  for (int d = row_rank - 1; d >= 0; --d) {
    long q = row / g.size[d], c = row - q * g.size[d];
    row = q;
    io += c * g.is[d];
    so += c * g.ss[d];
    oo += c * g.os[d];
  }
  for (long k = 0; k < K; ++k) {
    long v = index[io + k * ik];
    if (v < 0 || v >= len) continue;
    __global S* t = out + oo + v * out_dim_stride;
#if HAS_SRC
#if MODE == 0
    *t = src[so + k * sk];
#elif MODE == 1
    *t = STORE(LOAD(*t) + LOAD(src[so + k * sk]));
#else
    *t = STORE(LOAD(*t) * LOAD(src[so + k * sk]));
#endif
#else
#if MODE == 0
    *t = STORE(value);
#elif MODE == 1
    *t = STORE(LOAD(*t) + value);
#else
    *t = STORE(LOAD(*t) * value);
#endif
#endif
  }
}
)CLC";

struct CopyGeometry {
  cl_long size[8], a[8], b[8];
};
struct Lines {
  cl_long size[8], is[8], ss[8], os[8];
};

enum Mode { kSet = 0, kAdd = 1, kMultiply = 2 };

bool dense(const kgb_tensor* t) {
  int64_t expect = 1;
  for (int d = t->rank - 1; d >= 0; --d) {
    if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->sizes[d];
  }
  return true;
}

int copy_self(const kgb_tensor* self, kgb_tensor* out, const std::string& options, kgb_stream stream) {
  const int64_t n = kgb_numel(self);
  if (n == 0) return KGB_OK;
  const size_t elem = static_cast<size_t>(kgb_dtype_size(self->dtype));
  if (dense(self) && dense(out)) {
    cl_mem from = nullptr, to = nullptr;
    cl_long from_off = 0, to_off = 0;
    if (kgb_cl_tensor_buffer(stream, self, &from, &from_off) != CL_SUCCESS ||
        kgb_cl_tensor_buffer(stream, out, &to, &to_off) != CL_SUCCESS)
      return KGB_ERR_INVALID;
    return clEnqueueCopyBuffer(kgb_cl_get_queue(stream), from, to, static_cast<size_t>(from_off) * elem,
                               static_cast<size_t>(to_off) * elem, static_cast<size_t>(n) * elem, 0, nullptr, nullptr) == CL_SUCCESS
               ? KGB_OK : KGB_ERR_INVALID;
  }
  CopyGeometry g{};
  int rank = 0;
  for (int d = 0; d < self->rank; ++d) {  // merge dims contiguous in both
    const cl_long sz = self->sizes[d];
    if (sz == 1) continue;
    if (rank > 0 && g.a[rank - 1] == out->strides[d] * sz && g.b[rank - 1] == self->strides[d] * sz) {
      g.size[rank - 1] *= sz;
      g.a[rank - 1] = out->strides[d];
      g.b[rank - 1] = self->strides[d];
      continue;
    }
    g.size[rank] = sz;
    g.a[rank] = out->strides[d];
    g.b[rank] = self->strides[d];
    ++rank;
  }
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options.c_str(), "copy_self", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_long count = n;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, self);
  err |= clSetKernelArg(k, 4, sizeof g, &g);
  err |= clSetKernelArg(k, 5, sizeof rank, &rank);
  err |= clSetKernelArg(k, 6, sizeof count, &count);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const size_t local = kGroup, global = (static_cast<size_t>(n) + kGroup - 1) / kGroup * kGroup;
  return kgb_cl_enqueue(stream, k, 1, &global, &local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

// The scalar as the kernel's compute type C, converted to T first.
template <typename V>
cl_int set_value(cl_kernel k, cl_uint at, V v) {
  return clSetKernelArg(k, at, sizeof v, &v);
}
cl_int set_scalar(cl_kernel k, cl_uint at, int32_t dtype, kgb_scalar value) {
  const double f = value.dtype == KGB_F64 ? value.v.f : static_cast<double>(value.v.i);
  const int64_t i = value.dtype == KGB_F64 ? static_cast<int64_t>(value.v.f) : value.v.i;
  switch (dtype) {
    case KGB_F64: return set_value(k, at, static_cast<cl_double>(f));
    case KGB_F16: return set_value(k, at, static_cast<cl_float>(kgb_f16_to_float(kgb_float_to_f16(static_cast<float>(f)))));
    case KGB_BF16: return set_value(k, at, static_cast<cl_float>(kgb_bf16_to_float(kgb_float_to_bf16(static_cast<float>(f)))));
    case KGB_I32: return set_value(k, at, static_cast<cl_uint>(static_cast<int32_t>(i)));
    case KGB_I64: return set_value(k, at, static_cast<cl_ulong>(i));
    default: return set_value(k, at, static_cast<cl_float>(f));
  }
}

int run(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src, kgb_scalar value, int mode,
        kgb_tensor* out, kgb_stream stream) {
  switch (self->dtype) {
    case KGB_F32: case KGB_F16: case KGB_BF16: case KGB_I32: case KGB_I64: break;
    case KGB_F64: if (kgb_cl_has_fp64(stream)) break; return KGB_ERR_UNSUPPORTED;
    default: return KGB_ERR_UNSUPPORTED;
  }
  const int rank = self->rank;
  if (index->dtype != KGB_I64 || out->dtype != self->dtype || out->rank != rank || index->rank != rank) return KGB_ERR_INVALID;
  if (src && (src->dtype != self->dtype || src->rank != rank)) return KGB_ERR_INVALID;
  const int nominal = rank == 0 ? 1 : rank;
  if (dim < -nominal || dim >= nominal) return KGB_ERR_INVALID;
  if (dim < 0) dim += nominal;
  const int last = rank - 1;
  const bool dim_last = dim == last || rank == 0;
  Lines g{};
  int row_rank = 0;
  cl_long rows = 1, J = 1, K = 1, ij = 0, sj = 0, oj = 0, ik = 0, sk = 0, out_dim_stride = 0, len = 1, numel = 1;
  for (int d = 0; d < rank; ++d) {
    if (out->sizes[d] != self->sizes[d]) return KGB_ERR_INVALID;
    if (d != dim && index->sizes[d] > self->sizes[d]) return KGB_ERR_INVALID;
    if (src && index->sizes[d] > src->sizes[d]) return KGB_ERR_INVALID;
    const cl_long ss = src ? src->strides[d] : 0;
    numel *= index->sizes[d];
    if (d == dim) {
      K = index->sizes[d];
      ik = index->strides[d];
      sk = ss;
      out_dim_stride = out->strides[d];
      len = self->sizes[d];
    } else if (d == last && !dim_last) {
      J = index->sizes[d];
      ij = index->strides[d];
      sj = ss;
      oj = out->strides[d];
    } else {
      g.size[row_rank] = index->sizes[d];
      g.is[row_rank] = index->strides[d];
      g.ss[row_rank] = ss;
      g.os[row_rank] = out->strides[d];
      rows *= index->sizes[d];
      ++row_rank;
    }
  }
  const std::string options = "-cl-std=CL1.2 -DDT=" + std::to_string(self->dtype) + " -DMODE=" + std::to_string(mode) +
                              " -DHAS_SRC=" + (src ? "1" : "0");
  if (const int s = copy_self(self, out, options, stream); s != KGB_OK) return s;
  if (numel == 0 || kgb_numel(out) == 0) return KGB_OK;

  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options.c_str(), "scatter_lines", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, out);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, index);
  err |= kgb_cl_set_tensor_arg(stream, k, 4, src ? src : self);  // self: an unused stand-in for the value overloads
  err |= clSetKernelArg(k, 6, sizeof g, &g);
  err |= clSetKernelArg(k, 7, sizeof row_rank, &row_rank);
  const cl_long scalars[] = {J, rows, K, ij, sj, oj, ik, sk, out_dim_stride, len};
  for (cl_uint a = 0; a < 10; ++a) err |= clSetKernelArg(k, 8 + a, sizeof(cl_long), &scalars[a]);
  err |= set_scalar(k, 18, self->dtype, value);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  // Groups of 128 work-items: along the last dimension as far as it reaches
  // (rounded up to a power of two), the rest across lines.
  size_t along = 1;
  while (along < kGroup && along < static_cast<size_t>(J)) along *= 2;
  const size_t local[2] = {along, kGroup / along};
  const size_t global[2] = {(static_cast<size_t>(J) + local[0] - 1) / local[0] * local[0],
                            (static_cast<size_t>(rows) + local[1] - 1) / local[1] * local[1]};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_scatter(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src,
                                kgb_tensor* out, kgb_stream stream) {
  return run(self, dim, index, src, kgb_scalar{}, kSet, out, stream);
}

extern "C" int kgb_aten_scatter_value(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_scalar value,
                                      kgb_tensor* out, kgb_stream stream) {
  return run(self, dim, index, nullptr, value, kSet, out, stream);
}

extern "C" int kgb_aten_scatter_reduce(const kgb_tensor* self, int64_t dim, const kgb_tensor* index,
                                       const kgb_tensor* src, int reduce, kgb_tensor* out, kgb_stream stream) {
  if (reduce != 0 && reduce != 1) return KGB_ERR_INVALID;
  return run(self, dim, index, src, kgb_scalar{}, reduce == 0 ? kAdd : kMultiply, out, stream);
}

extern "C" int kgb_aten_scatter_value_reduce(const kgb_tensor* self, int64_t dim, const kgb_tensor* index,
                                             kgb_scalar value, int reduce, kgb_tensor* out, kgb_stream stream) {
  if (reduce != 0 && reduce != 1) return KGB_ERR_INVALID;
  return run(self, dim, index, nullptr, value, reduce == 0 ? kAdd : kMultiply, out, stream);
}
