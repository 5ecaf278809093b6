// aten/im2col in CUDA. out is written in order: blockIdx.y walks the output
// rows (n, c, i, j) in a grid-stride loop, threads of a block cover a row's
// L = OH*OW block positions, V consecutive positions per thread. A row reads
// input row y = oy*sh - ph + i*dh at x = ox*sw - pw + j*dw, zero bits in the
// padding, so neighbouring threads read neighbouring input elements (stride
// 1) and the input, read kh*kw times, stays in L2. When out's rows are dense
// and V-aligned, each thread stores its V elements as one vector (16 bytes
// for 4-byte elements); otherwise it stores them one by one through out's
// strides. Elements move bit for bit: kernels are instantiated per element
// size. 64-bit offsets throughout (out passes 2^31 elements easily).
#include <cuda_runtime.h>
#include <stdint.h>

#include "kgb_kernel.h"

namespace {

constexpr int kThreads = 256;

struct Geometry {
  long long height, width, kh, kw, dh, dw, ph, pw, sh, sw, ow, rows, length, units;
  long long sn, sc, sy, sx;  // self strides (batch stride 0 when unbatched)
  long long on, orow, ol;    // out strides
};

template <typename E, int V>
struct alignas(sizeof(E) * V) Pack {
  E v[V];
};

template <typename E, int V, bool kVector>
__global__ void __launch_bounds__(kThreads) im2col_rows(const E* __restrict__ src, E* __restrict__ dst,
                                                        const __grid_constant__ Geometry g) {
  const long long first = (static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x) * V;
  if (first >= g.length) return;
  for (long long u = blockIdx.y; u < g.units; u += gridDim.y) {
    const long long n = u / g.rows, row = u - n * g.rows;
    const long long c = row / (g.kh * g.kw), i = (row / g.kw) % g.kh, j = row % g.kw;
    const E* plane = src + n * g.sn + c * g.sc;
    const long long yoff = i * g.dh - g.ph, xoff = j * g.dw - g.pw;
    Pack<E, V> p;
    long long oy = first / g.ow, ox = first - oy * g.ow;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const long long y = oy * g.sh + yoff, x = ox * g.sw + xoff;
      const bool inside = first + k < g.length && y >= 0 && y < g.height && x >= 0 && x < g.width;
      p.v[k] = inside ? plane[y * g.sy + x * g.sx] : E(0);
      if (++ox == g.ow) ox = 0, ++oy;
    }
    E* out_row = dst + n * g.on + row * g.orow;
    if (kVector) {
      *reinterpret_cast<Pack<E, V>*>(out_row + first) = p;
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (first + k < g.length) out_row[(first + k) * g.ol] = p.v[k];
    }
  }
}

template <typename E, int V>
int launch(const void* src, void* dst, const Geometry& g, cudaStream_t s) {
  const long long bx = (g.length + static_cast<long long>(kThreads) * V - 1) / (static_cast<long long>(kThreads) * V);
  if (bx > 0x7fffffffLL) return KGB_ERR_UNSUPPORTED;
  const unsigned by = static_cast<unsigned>(g.units < 65535 ? g.units : 65535);
  // Vector stores need dense rows whose starts all keep V-element alignment.
  const bool vector = g.ol == 1 && g.length % V == 0 && g.orow % V == 0 && g.on % V == 0 &&
                      reinterpret_cast<uintptr_t>(dst) % (sizeof(E) * V) == 0;
  const dim3 grid(static_cast<unsigned>(bx), by);
  if (vector)
    im2col_rows<E, V, true><<<grid, kThreads, 0, s>>>(static_cast<const E*>(src), static_cast<E*>(dst), g);
  else
    im2col_rows<E, V, false><<<grid, kThreads, 0, s>>>(static_cast<const E*>(src), static_cast<E*>(dst), g);
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
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
  const long long batch = batched ? self->sizes[0] : 1, channels = self->sizes[r - 3];
  g.height = self->sizes[r - 2], g.width = self->sizes[r - 1];
  if (channels <= 0 || g.height <= 0 || g.width <= 0) return KGB_ERR_INVALID;
  const long long span_h = g.height + 2 * g.ph - g.dh * (g.kh - 1) - 1, span_w = g.width + 2 * g.pw - g.dw * (g.kw - 1) - 1;
  if (span_h < 0 || span_w < 0) return KGB_ERR_INVALID;  // fewer than one block position
  const long long oh = span_h / g.sh + 1;
  g.ow = span_w / g.sw + 1;
  g.rows = channels * g.kh * g.kw, g.length = oh * g.ow, g.units = batch * g.rows;
  if (batched && out->sizes[0] != batch) return KGB_ERR_INVALID;
  if (out->sizes[r - 3] != g.rows || out->sizes[r - 2] != g.length) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  g.sn = batched ? self->strides[0] : 0, g.sc = self->strides[r - 3], g.sy = self->strides[r - 2], g.sx = self->strides[r - 1];
  g.on = batched ? out->strides[0] : 0, g.orow = out->strides[r - 3], g.ol = out->strides[r - 2];

  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (kgb_dtype_size(self->dtype)) {
    case 1: return launch<uint8_t, 8>(self->data, out->data, g, s);
    case 2: return launch<uint16_t, 8>(self->data, out->data, g, s);
    case 4: return launch<uint32_t, 4>(self->data, out->data, g, s);
    default: return launch<uint64_t, 2>(self->data, out->data, g, s);
  }
}
