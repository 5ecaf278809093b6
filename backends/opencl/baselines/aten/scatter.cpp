// aten/scatter (src, value, reduce, value_reduce), plain OpenCL baseline: a
// copy kernel (one work-item per element) sets out = self, then one
// work-item per line of index (every coordinate but dim) walks the line in
// order and updates out. Positions on different lines never name the same
// element of out, so reductions need no atomics (OpenCL 1.2 has none for
// floats). 16-bit floats combine in float, one rounding per update.
#include <cstdint>

#include "../plain_common.h"
#include "kgb_entries/aten/scatter.h"
#include "kgb_half.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
#ifndef MODE
#define MODE 0
#endif
// Dims: s0 = out strides, s1 = self strides.
__kernel void copy_self(__global S* o, long oo, __global const S* x, long xo, Dims g, int rank, long n) {
  long i = get_global_id(0);
  if (i >= n) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  o[oo + a] = x[xo + b];
}

// MODE 0: set, 1: add, 2: multiply. HAS_SRC: src's element, else `value`.
// Dims (every index dim but dim): s0 = index, s1 = src, s2 = out strides.
__kernel void scatter_lines(__global S* o, long oo, __global const long* idx, long io, __global const S* src, long so,
                            Dims g, int rank, long lines, long K, long index_step, long src_step, long out_step, long len,
                            C value) {
  long i = get_global_id(0);
  if (i >= lines) return;
  long a, b, c, d;
  offsets(&g, rank, i, &a, &b, &c, &d);
  for (long k = 0; k < K; ++k) {
    long v = idx[io + a + k * index_step];
    if (v < 0 || v >= len) continue;
    long t = oo + c + v * out_step;
#if HAS_SRC
    S x = src[so + b + k * src_step];
#if MODE == 0
    o[t] = x;
#elif MODE == 1
    o[t] = STORE(LOAD(o[t]) + LOAD(x));
#else
    o[t] = STORE(LOAD(o[t]) * LOAD(x));
#endif
#else
#if MODE == 0
    o[t] = STORE(value);
#elif MODE == 1
    o[t] = STORE(LOAD(o[t]) + value);
#else
    o[t] = STORE(LOAD(o[t]) * value);
#endif
#endif
  }
}
)CLC";

int run(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src, kgb_scalar value, int mode,
        kgb_tensor* out, kgb_stream stream) {
  const char* dtype = dtype_options(self->dtype);
  if (!dtype) return KGB_ERR_UNSUPPORTED;
  if (self->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const int rank = self->rank;
  dim = normalise_dim(dim, rank);
  const std::string options =
      std::string(dtype) + " -DMODE=" + std::to_string(mode) + " -DHAS_SRC=" + (src ? "1" : "0");

  Dims whole;
  for (int d = 0; d < rank; ++d) whole.add(self->sizes[d], out->strides[d], self->strides[d]);
  if (whole.count == 0) return KGB_OK;
  cl_kernel copy = kernel(stream, kSource, options.c_str(), "copy_self");
  if (!copy) return KGB_ERR_UNSUPPORTED;
  Args c{stream, copy};
  c.tensor(out).tensor(self).dims(whole).value(whole.count);
  if (c.error != CL_SUCCESS) return KGB_ERR_INVALID;
  if (const int s = launch(stream, copy, whole.count); s != KGB_OK) return s;

  Dims lines;
  cl_long K = 1, index_step = 0, src_step = 0, out_step = 0, len = 1;
  for (int d = 0; d < rank; ++d) {
    if (d == dim) {
      K = index->sizes[d];
      index_step = index->strides[d];
      src_step = src ? src->strides[d] : 0;
      out_step = out->strides[d];
      len = self->sizes[d];
      continue;
    }
    lines.add(index->sizes[d], index->strides[d], src ? src->strides[d] : 0, out->strides[d]);
  }
  if (lines.count == 0 || K == 0) return KGB_OK;
  cl_kernel k = kernel(stream, kSource, options.c_str(), "scatter_lines");
  if (!k) return KGB_ERR_UNSUPPORTED;
  Args a{stream, k};
  a.tensor(out).tensor(index);
  if (src) a.tensor(src);
  else a.tensor(index);  // unused buffer argument
  a.dims(lines).value(lines.count).value(K).value(index_step).value(src_step).value(out_step).value(len);
  // The value in the kernel's compute type C, converted to T first.
  const double vf = value.dtype == KGB_F64 ? value.v.f : static_cast<double>(value.v.i);
  const int64_t vi = value.dtype == KGB_F64 ? static_cast<int64_t>(value.v.f) : value.v.i;
  switch (self->dtype) {
    case KGB_F32: a.value(static_cast<float>(vf)); break;
    case KGB_F16: a.value(kgb_f16_to_float(kgb_float_to_f16(static_cast<float>(vf)))); break;
    case KGB_BF16: a.value(kgb_bf16_to_float(kgb_float_to_bf16(static_cast<float>(vf)))); break;
    case KGB_F64: a.value(vf); break;
    case KGB_I32: a.value(static_cast<cl_long>(static_cast<int32_t>(vi))); break;
    default: a.value(static_cast<cl_long>(vi)); break;
  }
  if (a.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, k, lines.count);
}

int scatter_src(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src, kgb_tensor* out,
                kgb_stream stream) {
  return run(self, dim, index, src, kgb_scalar{}, 0, out, stream);
}
int scatter_value(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_scalar value, kgb_tensor* out,
                  kgb_stream stream) {
  return run(self, dim, index, nullptr, value, 0, out, stream);
}
int scatter_reduce(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, const kgb_tensor* src, int reduce,
                   kgb_tensor* out, kgb_stream stream) {
  return run(self, dim, index, src, kgb_scalar{}, reduce == 0 ? 1 : 2, out, stream);
}
int scatter_value_reduce(const kgb_tensor* self, int64_t dim, const kgb_tensor* index, kgb_scalar value, int reduce,
                         kgb_tensor* out, kgb_stream stream) {
  return run(self, dim, index, nullptr, value, reduce == 0 ? 1 : 2, out, stream);
}

}  // namespace
KGB_BASELINE(aten_scatter, kKind, scatter_src);
KGB_BASELINE(aten_scatter_value, kKind, scatter_value);
KGB_BASELINE(aten_scatter_reduce, kKind, scatter_reduce);
KGB_BASELINE(aten_scatter_value_reduce, kKind, scatter_value_reduce);
}  // namespace kgb::opencl::plain
