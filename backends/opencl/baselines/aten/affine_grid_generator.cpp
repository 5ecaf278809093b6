// aten/affine_grid_generator, plain OpenCL baseline: one work-item per
// element of out, its index decomposed into (n, [d,] h, w, k); the base
// coordinates are computed in the compute type (float for 16-bit dtypes) and
// dotted with row k of theta[n], read through theta's strides.
#include "../plain_common.h"
#include "kgb_entries/aten/affine_grid_generator.h"

namespace kgb::opencl::plain {
namespace {

const std::string kSource = std::string(dtype_prelude()) + R"CLC(
C coordinate(long i, long size, int align) {
  if (size <= 1) return (C)0;
  if (align) return (C)-1 + (C)2 * (C)i / (C)(size - 1);
  return ((C)2 * (C)i + (C)1) / (C)size - (C)1;
}
// sz: D, H, W (D = 1 for 2-D); ts: theta strides; os: out strides n, d, h, w, k.
__kernel void affine_grid(__global S* o, long oo, __global const S* th, long tho, long4 sz, long4 ts, long8 os,
                          int spatial, int align, long n) {
  long e = get_global_id(0);
  if (e >= n) return;
  const long k = e % spatial, w = (e / spatial) % sz.s2, h = (e / (spatial * sz.s2)) % sz.s1;
  const long d = (e / (spatial * sz.s2 * sz.s1)) % sz.s0, b = e / (spatial * sz.s2 * sz.s1 * sz.s0);
  const long row = tho + b * ts.s0 + k * ts.s1;
  C sum = LOAD(th[row + spatial * ts.s2]);
  sum += LOAD(th[row]) * coordinate(w, sz.s2, align);
  sum += LOAD(th[row + ts.s2]) * coordinate(h, sz.s1, align);
  if (spatial == 3) sum += LOAD(th[row + 2 * ts.s2]) * coordinate(d, sz.s0, align);
  o[oo + b * os.s0 + d * os.s1 + h * os.s2 + w * os.s3 + k * os.s4] = STORE(sum);
}
)CLC";

int affine_grid_generator(const kgb_tensor* theta, kgb_int_list size, int align_corners, kgb_tensor* out,
                          kgb_stream stream) {
  cl_kernel kern = kernel(stream, kSource, dtype_options(theta->dtype), "affine_grid");
  if (!kern || (size.count != 4 && size.count != 5)) return KGB_ERR_UNSUPPORTED;
  const bool volumetric = size.count == 5;
  const cl_int spatial = volumetric ? 3 : 2;
  const cl_long depth = volumetric ? size.values[2] : 1;
  cl_long4 sz = {{depth, size.values[size.count - 2], size.values[size.count - 1], 0}};
  cl_long4 ts = {{theta->strides[0], theta->strides[1], theta->strides[2], 0}};
  cl_long8 os = {{out->strides[0], volumetric ? out->strides[1] : 0, out->strides[out->rank - 3],
                  out->strides[out->rank - 2], out->strides[out->rank - 1], 0, 0, 0}};
  const cl_long n = kgb_numel(out);
  if (n == 0) return KGB_OK;
  const cl_int align = align_corners ? 1 : 0;
  Args args{stream, kern};
  args.tensor(out).tensor(theta).value(sz).value(ts).value(os).value(spatial).value(align).value(n);
  if (args.error != CL_SUCCESS) return KGB_ERR_INVALID;
  return launch(stream, kern, n);
}

}  // namespace
KGB_BASELINE(aten_affine_grid_generator, kKind, affine_grid_generator);
}  // namespace kgb::opencl::plain
