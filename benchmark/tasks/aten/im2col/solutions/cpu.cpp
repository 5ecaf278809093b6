// aten/im2col on the CPU. Every output row (n, c, i, j) is OH runs of OW
// elements: run oy reads input row y = oy*sh - ph + i*dh (all zeros when y
// is in the padding), element ox reads x = ox*sw - pw + j*dw. The valid ox
// range of a tap is computed once per row, so the inner loop has no bounds
// checks: zero prefix, a memcpy when the stride is 1 and self is dense along
// W (a strided gather the compiler vectorises otherwise), zero suffix.
// Elements move bit for bit, so the copy works on element sizes. Rows are
// shared by the threads (OpenMP, static schedule); a general path writes
// through out's strides when out's last dim is not dense.
#include <stdint.h>
#include <string.h>

#include "kgb_kernel.h"

namespace {

struct Geometry {
  int64_t channels, height, width, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow, rows, length;
  int64_t sn, sc, sy, sx;   // self strides (batch stride 0 when unbatched)
  int64_t on, orow, ol;     // out strides
};

// First ox with x = ox*sw - pw + off >= 0, and one past the last with x < width.
inline void valid_range(const Geometry& g, int64_t off, int64_t* lo, int64_t* hi) {
  const int64_t start = off - g.pw;  // x at ox = 0
  int64_t a = start >= 0 ? 0 : (-start + g.sw - 1) / g.sw;
  int64_t b = start >= g.width ? 0 : (g.width - 1 - start) / g.sw + 1;
  if (a > g.ow) a = g.ow;
  if (b > g.ow) b = g.ow;
  if (b < a) b = a;
  *lo = a;
  *hi = b;
}

template <typename E>
void run(const E* src, E* dst, const Geometry& g, int64_t batch) {
  const int64_t units = batch * g.rows;
  const bool dense_out = g.ol == 1;
#pragma omp parallel for schedule(static) if (units * g.length > 32768)
  for (int64_t u = 0; u < units; ++u) {
    const int64_t n = u / g.rows, row = u - n * g.rows;
    const int64_t c = row / (g.kh * g.kw), i = (row / g.kw) % g.kh, j = row % g.kw;
    int64_t lo, hi;
    valid_range(g, j * g.dw, &lo, &hi);
    const E* plane = src + n * g.sn + c * g.sc;
    E* __restrict out_row = dst + n * g.on + row * g.orow;
    const int64_t x0 = lo * g.sw - g.pw + j * g.dw;  // x of the first valid ox
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      const int64_t y = oy * g.sh - g.ph + i * g.dh;
      if (dense_out) {
        E* __restrict d = out_row + oy * g.ow;
        if (y < 0 || y >= g.height) {
          memset(d, 0, static_cast<size_t>(g.ow) * sizeof(E));
          continue;
        }
        const E* __restrict s = plane + y * g.sy + x0 * g.sx;
        memset(d, 0, static_cast<size_t>(lo) * sizeof(E));
        if (g.sw == 1 && g.sx == 1) {
          memcpy(d + lo, s, static_cast<size_t>(hi - lo) * sizeof(E));
        } else {
          const int64_t step = g.sw * g.sx;
          for (int64_t k = 0; k < hi - lo; ++k) d[lo + k] = s[k * step];
        }
        memset(d + hi, 0, static_cast<size_t>(g.ow - hi) * sizeof(E));
      } else {
        E* __restrict d = out_row + oy * g.ow * g.ol;
        const bool inside = y >= 0 && y < g.height;
        const E* s = plane + (inside ? y : 0) * g.sy + x0 * g.sx;
        for (int64_t ox = 0; ox < g.ow; ++ox)
          d[ox * g.ol] = inside && ox >= lo && ox < hi ? s[(ox - lo) * g.sw * g.sx] : E(0);
      }
    }
  }
}

}  // namespace

extern "C" int kgb_aten_im2col(const kgb_tensor* self, kgb_int_list kernel_size, kgb_int_list dilation,
                               kgb_int_list padding, kgb_int_list stride, kgb_tensor* out, kgb_stream stream) {
  (void)stream;
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
  const int64_t batch = batched ? self->sizes[0] : 1;
  g.channels = self->sizes[r - 3], g.height = self->sizes[r - 2], g.width = self->sizes[r - 1];
  if (g.channels <= 0 || g.height <= 0 || g.width <= 0) return KGB_ERR_INVALID;
  const int64_t span_h = g.height + 2 * g.ph - g.dh * (g.kh - 1) - 1, span_w = g.width + 2 * g.pw - g.dw * (g.kw - 1) - 1;
  if (span_h < 0 || span_w < 0) return KGB_ERR_INVALID;  // fewer than one block position
  g.oh = span_h / g.sh + 1, g.ow = span_w / g.sw + 1;
  g.rows = g.channels * g.kh * g.kw, g.length = g.oh * g.ow;
  if (batched && out->sizes[0] != batch) return KGB_ERR_INVALID;
  if (out->sizes[r - 3] != g.rows || out->sizes[r - 2] != g.length) return KGB_ERR_INVALID;
  if (batch == 0) return KGB_OK;
  g.sn = batched ? self->strides[0] : 0, g.sc = self->strides[r - 3], g.sy = self->strides[r - 2], g.sx = self->strides[r - 1];
  g.on = batched ? out->strides[0] : 0, g.orow = out->strides[r - 3], g.ol = out->strides[r - 2];

  switch (kgb_dtype_size(self->dtype)) {
    case 1: run(static_cast<const uint8_t*>(self->data), static_cast<uint8_t*>(out->data), g, batch); break;
    case 2: run(static_cast<const uint16_t*>(self->data), static_cast<uint16_t*>(out->data), g, batch); break;
    case 4: run(static_cast<const uint32_t*>(self->data), static_cast<uint32_t*>(out->data), g, batch); break;
    default: run(static_cast<const uint64_t*>(self->data), static_cast<uint64_t*>(out->data), g, batch); break;
  }
  return KGB_OK;
}
