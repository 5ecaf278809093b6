// aten/upsample_nearest2d_backward in OpenCL: every grad_input pixel sums the
// grad_output pixels whose legacy nearest source it is.
//
// A gather, one work-item per grad_input element: no atomics, each sum in a
// fixed order, the same bits on every run. The source rule
// src(o) = min(floor(o * s), in - 1) (float32, as ATen) is non-decreasing in
// o, so input position i owns the output run [start(i), start(i + 1)); a
// work-item estimates its run bounds as i / s and steps them with the forward
// rule itself until exact, so it selects exactly the forward rule's pixels.
// A 2-D range: dimension 0 runs along iw (neighbouring work-items read
// neighbouring output columns: coalesced), dimension 1 over the grad_input
// rows (n, c, ih), whose row run each work-item resolves once. For an exact
// 2x width with unit-stride grad_output the two columns are one vector load
// (f32: vload2). f16/bf16 accumulate in float and round once; f64 needs cl_khr_fp64.
#include <math.h>
#include <stdint.h>

#include "kgb_half.h"
#include "kgb_opencl.h"

namespace {

const char kSource[] = KGB_CL_HALF_SOURCE R"CLC(
#ifndef KGB_DT
#define KGB_DT 6
#endif
#if KGB_DT == 7
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double S; typedef double A;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif KGB_DT == 4 || KGB_DT == 5
typedef ushort S; typedef float A;
#if KGB_DT == 4
#define LOAD(v) kgb_f16_to_float(v)
#define STORE(v) kgb_float_to_f16(v)
#else
#define LOAD(v) kgb_bf16_to_float(v)
#define STORE(v) kgb_float_to_bf16(v)
#endif
#else
typedef float S; typedef float A;
#define LOAD(v) (v)
#define STORE(v) (v)
#endif

long source_of(long o, long in, float s) {
  long v = (long)floor((float)o * s);
  return v < in - 1 ? v : in - 1;
}

// First output position whose source is >= i (out when none).
long run_start(long i, long in, long out, float s) {
  if (i <= 0) return 0;
  if (i >= in) return out;
  long o = (long)ceil((float)i / s);
  o = o < 0 ? 0 : (o > out ? out : o);
  while (o > 0 && source_of(o - 1, in, s) >= i) --o;
  while (o < out && source_of(o, in, s) < i) ++o;
  return o;
}

// g: N, C, H, W, OH, OW; gs / os: grad_output / grad_input strides.
__kernel void gather(__global const S* grad, long g_off, __global S* out, long o_off, long8 g, long4 gs, long4 os,
                     float sh, float sw, int pair) {
  const long iw = get_global_id(0), row = get_global_id(1);
  const long N = g.s0, C = g.s1, H = g.s2, W = g.s3, OH = g.s4, OW = g.s5;
  if (iw >= W || row >= N * C * H) return;
  const long ih = row % H, nc = row / H, c = nc % C, n = nc / C;
  const long h0 = run_start(ih, H, OH, sh), h1 = run_start(ih + 1, H, OH, sh);
  __global const S* plane = grad + g_off + n * gs.s0 + c * gs.s1;
  A sum = 0;
  if (pair) {
    for (long oh = h0; oh < h1; ++oh) {
      __global const S* p = plane + oh * gs.s2 + 2 * iw;
#if KGB_DT == 6
      const float2 v = vload2(0, p);
      sum += v.x + v.y;
#else
      sum += LOAD(p[0]) + LOAD(p[1]);
#endif
    }
  } else {
    const long w0 = run_start(iw, W, OW, sw), w1 = run_start(iw + 1, W, OW, sw);
    for (long oh = h0; oh < h1; ++oh) {
      __global const S* r = plane + oh * gs.s2;
      for (long ow = w0; ow < w1; ++ow) sum += LOAD(r[ow * gs.s3]);
    }
  }
  out[o_off + n * os.s0 + c * os.s1 + ih * os.s2 + iw * os.s3] = STORE(sum);
}
)CLC";

const char* build_options(int32_t dtype) {
  switch (dtype) {
    case KGB_F16: return "-cl-std=CL1.2 -DKGB_DT=4";
    case KGB_BF16: return "-cl-std=CL1.2 -DKGB_DT=5";
    case KGB_F32: return "-cl-std=CL1.2 -DKGB_DT=6";
    case KGB_F64: return "-cl-std=CL1.2 -DKGB_DT=7";
    default: return nullptr;
  }
}

float forward_scale(int64_t in, int64_t out, const double* scale) {
  return (scale && *scale > 0) ? static_cast<float>(1.0 / *scale) : static_cast<float>(in) / static_cast<float>(out);
}

int64_t host_source(int64_t o, int64_t in, float s) {
  const int64_t v = static_cast<int64_t>(floorf(static_cast<float>(o) * s));
  return v < in - 1 ? v : in - 1;
}

}  // namespace

extern "C" int kgb_aten_upsample_nearest2d_backward(const kgb_tensor* grad_output, kgb_int_list output_size,
                                                    kgb_int_list input_size, const double* scales_h,
                                                    const double* scales_w, kgb_tensor* grad_input, kgb_stream stream) {
  if (output_size.count != 2 || input_size.count != 4) return KGB_ERR_INVALID;
  if (grad_output->rank != 4 || grad_input->rank != 4 || grad_output->dtype != grad_input->dtype) return KGB_ERR_INVALID;
  const int64_t N = input_size.values[0], C = input_size.values[1], H = input_size.values[2], W = input_size.values[3];
  const int64_t OH = output_size.values[0], OW = output_size.values[1];
  if (N < 0 || C < 0 || H <= 0 || W <= 0 || OH <= 0 || OW <= 0) return KGB_ERR_INVALID;
  const int64_t want_out[4] = {N, C, OH, OW};
  for (int d = 0; d < 4; ++d)
    if (grad_input->sizes[d] != input_size.values[d] || grad_output->sizes[d] != want_out[d]) return KGB_ERR_INVALID;
  const char* options = build_options(grad_input->dtype);
  if (!options) return KGB_ERR_UNSUPPORTED;
  if (grad_input->dtype == KGB_F64 && !kgb_cl_has_fp64(stream)) return KGB_ERR_UNSUPPORTED;
  const int64_t rows = N * C * H;
  if (rows == 0) return KGB_OK;

  const float sh = forward_scale(H, OH, scales_h), sw = forward_scale(W, OW, scales_w);
  // The vector path: runs exactly [2 iw, 2 iw + 2) and unit-stride rows.
  cl_int pair = OW == 2 * W && grad_output->strides[3] == 1;
  for (int64_t ow = 0; ow < OW && pair; ++ow) pair = host_source(ow, W, sw) == ow / 2;
  cl_long8 g{};
  g.s[0] = N;
  g.s[1] = C;
  g.s[2] = H;
  g.s[3] = W;
  g.s[4] = OH;
  g.s[5] = OW;
  cl_long4 gs{}, os{};
  for (int d = 0; d < 4; ++d) {
    gs.s[d] = grad_output->strides[d];
    os.s[d] = grad_input->strides[d];
  }
  cl_kernel k = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options, "gather", &k) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_int err = kgb_cl_set_tensor_arg(stream, k, 0, grad_output);
  err |= kgb_cl_set_tensor_arg(stream, k, 2, grad_input);
  err |= clSetKernelArg(k, 4, sizeof g, &g);
  err |= clSetKernelArg(k, 5, sizeof gs, &gs);
  err |= clSetKernelArg(k, 6, sizeof os, &os);
  err |= clSetKernelArg(k, 7, sizeof sh, &sh);
  err |= clSetKernelArg(k, 8, sizeof sw, &sw);
  err |= clSetKernelArg(k, 9, sizeof pair, &pair);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  // Groups of 128: along iw as far as W reaches (a power of two), the rest across rows.
  size_t along = 1;
  while (along < 128 && along < static_cast<size_t>(W)) along *= 2;
  const size_t local[2] = {along, 128 / along};
  const size_t global[2] = {(static_cast<size_t>(W) + local[0] - 1) / local[0] * local[0],
                            (static_cast<size_t>(rows) + local[1] - 1) / local[1] * local[1]};
  return kgb_cl_enqueue(stream, k, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
