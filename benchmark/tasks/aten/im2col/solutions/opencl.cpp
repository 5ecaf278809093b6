// aten/im2col in OpenCL. out is written in order: the second NDRange dim
// walks the output rows (n, c, i, j) in a grid-stride loop, work-items of the
// first dim cover a row's L = OH*OW block positions, four consecutive
// positions each. A row reads input row y = oy*sh - ph + i*dh at
// x = ox*sw - pw + j*dw, zero bits in the padding, so neighbouring
// work-items read neighbouring input elements and the input, read kh*kw
// times, stays in cache. Dense out rows are written with vstore4, other
// layouts element by element through out's strides. Elements move bit for
// bit: the program is built per element size (E an unsigned type of it).
#include <stdint.h>

#include "kgb_opencl.h"

namespace {

constexpr size_t kGroup = 256;
constexpr cl_long kVec = 4;

const char kSource[] = R"CLC(
#if ELEM == 1
typedef uchar E; typedef uchar4 E4;
#elif ELEM == 2
typedef ushort E; typedef ushort4 E4;
#elif ELEM == 4
typedef uint E; typedef uint4 E4;
#else
typedef ulong E; typedef ulong4 E4;
#endif
typedef struct {
  long height, width, kh, kw, dh, dw, ph, pw, sh, sw, ow, rows, length, units;
  long sn, sc, sy, sx;  // self strides (batch stride 0 when unbatched)
  long on, orow, ol;    // out strides
} Geometry;

__kernel void im2col_rows(__global const E* src, long src_off, __global E* dst, long dst_off, Geometry g, int dense) {
  const long first = (long)get_global_id(0) * 4;
  if (first >= g.length) return;
  for (long u = get_global_id(1); u < g.units; u += get_global_size(1)) {
    const long n = u / g.rows, row = u - n * g.rows;
    const long c = row / (g.kh * g.kw), i = (row / g.kw) % g.kh, j = row % g.kw;
    const long plane = src_off + n * g.sn + c * g.sc;
    const long yoff = i * g.dh - g.ph, xoff = j * g.dw - g.pw;
    E v[4];
    long oy = first / g.ow, ox = first - oy * g.ow;
    for (int k = 0; k < 4; ++k) {
      const long y = oy * g.sh + yoff, x = ox * g.sw + xoff;
      const bool inside = first + k < g.length && y >= 0 && y < g.height && x >= 0 && x < g.width;
      v[k] = inside ? src[plane + y * g.sy + x * g.sx] : (E)0;
      if (++ox == g.ow) { ox = 0; ++oy; }
    }
    const long out_row = dst_off + n * g.on + row * g.orow;
    if (dense && first + 4 <= g.length) {
      vstore4((E4)(v[0], v[1], v[2], v[3]), 0, dst + out_row + first);
    } else {
      for (int k = 0; k < 4; ++k)
        if (first + k < g.length) dst[out_row + (first + k) * g.ol] = v[k];
    }
  }
}
)CLC";

struct Geometry {
  cl_long height, width, kh, kw, dh, dw, ph, pw, sh, sw, ow, rows, length, units;
  cl_long sn, sc, sy, sx;
  cl_long on, orow, ol;
};
static_assert(sizeof(Geometry) == 21 * 8, "Geometry must match the OpenCL C struct");

const char* options(int elem) {
  switch (elem) {
    case 1: return "-cl-std=CL1.2 -DELEM=1";
    case 2: return "-cl-std=CL1.2 -DELEM=2";
    case 4: return "-cl-std=CL1.2 -DELEM=4";
    default: return "-cl-std=CL1.2 -DELEM=8";
  }
}

}  // namespace

extern "C" int kgb_aten_im2col(const kgb_tensor* self, kgb_int_list kernel_size, kgb_int_list dilation,
                               kgb_int_list padding, kgb_int_list stride, kgb_tensor* out, kgb_stream stream) {
  switch (self->dtype) {
    case KGB_F32: case KGB_F16: case KGB_BF16: case KGB_F64: case KGB_C64: case KGB_BOOL: break;
    default: return KGB_ERR_UNSUPPORTED;
  }
  if (kernel_size.count != 2 || dilation.count != 2 || padding.count != 2 || stride.count != 2) return KGB_ERR_INVALID;
  const int r = self->rank;
  if ((r != 3 && r != 4) || out->dtype != self->dtype || out->rank != r - 1) return KGB_ERR_INVALID;
  Geometry g{};
  g.kh = kernel_size.values[0], g.kw = kernel_size.values[1];
  g.dh = dilation.values[0], g.dw = dilation.values[1];
  g.ph = padding.values[0], g.pw = padding.values[1];
  g.sh = stride.values[0], g.sw = stride.values[1];
  if (g.kh <= 0 || g.kw <= 0 || g.dh <= 0 || g.dw <= 0 || g.sh <= 0 || g.sw <= 0 || g.ph < 0 || g.pw < 0)
    return KGB_ERR_INVALID;
  const bool batched = r == 4;
  const cl_long batch = batched ? self->sizes[0] : 1, channels = self->sizes[r - 3];
  g.height = self->sizes[r - 2], g.width = self->sizes[r - 1];
  if (channels <= 0 || g.height <= 0 || g.width <= 0) return KGB_ERR_INVALID;
  const cl_long span_h = g.height + 2 * g.ph - g.dh * (g.kh - 1) - 1, span_w = g.width + 2 * g.pw - g.dw * (g.kw - 1) - 1;
  if (span_h < 0 || span_w < 0) return KGB_ERR_INVALID;  // fewer than one block position
  const cl_long oh = span_h / g.sh + 1;
  g.ow = span_w / g.sw + 1;
  g.rows = channels * g.kh * g.kw, g.length = oh * g.ow, g.units = batch * g.rows;
  if (batched && out->sizes[0] != batch) return KGB_ERR_INVALID;
  if (out->sizes[r - 3] != g.rows || out->sizes[r - 2] != g.length) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  g.sn = batched ? self->strides[0] : 0, g.sc = self->strides[r - 3], g.sy = self->strides[r - 2], g.sx = self->strides[r - 1];
  g.on = batched ? out->strides[0] : 0, g.orow = out->strides[r - 3], g.ol = out->strides[r - 2];

  cl_mem self_buffer = nullptr, out_buffer = nullptr;
  cl_long self_off = 0, out_off = 0;
  if (kgb_cl_tensor_buffer(stream, self, &self_buffer, &self_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  if (kgb_cl_tensor_buffer(stream, out, &out_buffer, &out_off) != CL_SUCCESS) return KGB_ERR_INVALID;
  cl_kernel kern = nullptr;
  if (kgb_cl_get_kernel(stream, kSource, options(kgb_dtype_size(self->dtype)), "im2col_rows", &kern) != CL_SUCCESS)
    return KGB_ERR_INVALID;
  const cl_int dense = g.ol == 1 ? 1 : 0;
  cl_int err = clSetKernelArg(kern, 0, sizeof self_buffer, &self_buffer);
  err |= clSetKernelArg(kern, 1, sizeof self_off, &self_off);
  err |= clSetKernelArg(kern, 2, sizeof out_buffer, &out_buffer);
  err |= clSetKernelArg(kern, 3, sizeof out_off, &out_off);
  err |= clSetKernelArg(kern, 4, sizeof g, &g);
  err |= clSetKernelArg(kern, 5, sizeof dense, &dense);
  if (err != CL_SUCCESS) return KGB_ERR_INVALID;
  const cl_long chunks = (g.length + kVec - 1) / kVec;
  const size_t global[2] = {static_cast<size_t>((chunks + static_cast<cl_long>(kGroup) - 1) / static_cast<cl_long>(kGroup)) * kGroup,
                            static_cast<size_t>(g.units < 65535 ? g.units : 65535)};
  const size_t local[2] = {kGroup, 1};
  return kgb_cl_enqueue(stream, kern, 2, global, local) == CL_SUCCESS ? KGB_OK : KGB_ERR_INVALID;
}
