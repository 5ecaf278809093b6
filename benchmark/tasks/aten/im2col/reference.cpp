// Reference for aten/im2col: ATen's im2col(self, kernel_size, dilation,
// padding, stride) as an exact copy (bit for bit, any dtype) of the element
// each output position reads, zero bits where the block overlaps the
// padding, with the argument checks ATen makes (im2col_shape_check.h):
//   out[n, (c*kh + i)*kw + j, oy*OW + ox] = self[n, c, oy*sh - ph + i*dh, ox*sw - pw + j*dw].
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

// Floor division for a positive divisor (ATen's div_rtn).
int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

void im2col_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  const std::vector<int64_t>& kernel = args.int_list("kernel_size");
  const std::vector<int64_t>& dilation = args.int_list("dilation");
  const std::vector<int64_t>& padding = args.int_list("padding");
  const std::vector<int64_t>& stride = args.int_list("stride");
  if (kernel.size() != 2 || dilation.size() != 2 || padding.size() != 2 || stride.size() != 2)
    throw std::runtime_error("aten/im2col: kernel_size, dilation, padding and stride must hold two values");
  const int64_t kh = kernel[0], kw = kernel[1], dh = dilation[0], dw = dilation[1];
  const int64_t ph = padding[0], pw = padding[1], sh = stride[0], sw = stride[1];
  if (kh <= 0 || kw <= 0 || dh <= 0 || dw <= 0 || sh <= 0 || sw <= 0 || ph < 0 || pw < 0)
    throw std::runtime_error("aten/im2col: kernel, dilation and stride must be positive, padding non-negative");
  const int64_t rank = self.rank();
  if (rank != 3 && rank != 4) throw std::runtime_error("aten/im2col: self must be 3-D or 4-D");
  const bool batched = rank == 4;
  const std::vector<int64_t>& is = self.sizes();
  const int64_t n_batch = batched ? is[0] : 1, channels = is[rank - 3], height = is[rank - 2], width = is[rank - 1];
  if (channels == 0 || height == 0 || width == 0) throw std::runtime_error("aten/im2col: C, H and W must be nonzero");
  const int64_t oh = floor_div(height + 2 * ph - dh * (kh - 1) - 1, sh) + 1;
  const int64_t ow = floor_div(width + 2 * pw - dw * (kw - 1) - 1, sw) + 1;
  if (oh < 1 || ow < 1) throw std::runtime_error("aten/im2col: the array of sliding blocks is empty");
  const int64_t rows = channels * kh * kw, length = oh * ow;
  const std::vector<int64_t> expected = batched ? std::vector<int64_t>{n_batch, rows, length} : std::vector<int64_t>{rows, length};
  if (out.sizes() != expected) throw std::runtime_error("aten/im2col: out has the wrong shape");
  if (out.dtype() != self.dtype()) throw std::runtime_error("aten/im2col: out has the wrong dtype");
  if (out.numel() == 0) return;

  const std::vector<int64_t>& st = self.strides();
  const int64_t sn = batched ? st[0] : 0, sc = st[rank - 3], sy = st[rank - 2], sx = st[rank - 1];
  const size_t elem = static_cast<size_t>(kgb::dtype_size(out.dtype()));
  const std::byte* src = self.data();
  std::byte* dst = out.data();
  kgb::parallel_chunks(out.numel(), [&](int64_t first, int64_t last) {
    kgb::OffsetWalker to(out, first);
    for (int64_t e = first; e < last; ++e, to.next()) {
      const int64_t l = e % length, row = (e / length) % rows, n = e / (length * rows);
      const int64_t c = row / (kh * kw), i = (row / kw) % kh, j = row % kw;
      const int64_t y = (l / ow) * sh - ph + i * dh, x = (l % ow) * sw - pw + j * dw;
      std::byte* d = dst + to.offset() * static_cast<int64_t>(elem);
      if (y < 0 || y >= height || x < 0 || x >= width)
        std::memset(d, 0, elem);
      else
        std::memcpy(d, src + (n * sn + c * sc + y * sy + x * sx) * static_cast<int64_t>(elem), elem);
    }
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/im2col", im2col_reference);
