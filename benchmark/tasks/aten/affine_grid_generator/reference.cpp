// Reference for aten/affine_grid_generator: ATen's affine_grid_generator(
// theta, size, align_corners). ATen fills a base grid of T with the
// coordinates (x(w), x(h)[, x(d)], 1), x being linspace(-1, 1, S) (0 for
// S = 1) scaled by (S-1)/S without align_corners, and multiplies it with
// theta^T in a batched matrix product accumulating in float. Here each base
// coordinate is computed exactly and rounded to T (the base grid's dtype),
// the products are summed exactly and the sum is rounded once into out.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

// x(i, S) rounded to the base grid's dtype.
std::vector<double> base_coordinates(int64_t size, bool align_corners, kgb::DType dtype) {
  std::vector<double> x(static_cast<size_t>(size), 0.0);
  for (int64_t i = 0; i < size && size > 1; ++i) {
    double v = align_corners ? -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(size - 1)
                             : (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(size) - 1.0;
    switch (dtype) {
      case kgb::DType::F32: v = static_cast<double>(static_cast<float>(v)); break;
      case kgb::DType::F16: v = static_cast<double>(kgb::half_to_float(kgb::double_to_half(v))); break;
      case kgb::DType::BF16: v = static_cast<double>(kgb::bfloat16_to_float(kgb::double_to_bfloat16(v))); break;
      default: break;
    }
    x[static_cast<size_t>(i)] = v;
  }
  return x;
}

void affine_grid_generator_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& theta = args.tensor("theta");
  kgb::HostTensor& out = args.tensor("out");
  const std::vector<int64_t>& size = args.int_list("size");
  const bool align_corners = args.bool_scalar("align_corners");
  if (size.size() != 4 && size.size() != 5)
    throw std::runtime_error("aten/affine_grid_generator: size must hold 4 (2-D) or 5 (3-D) values");
  const int64_t spatial = static_cast<int64_t>(size.size()) - 2;  // 2 or 3 coordinates
  for (int64_t s : size)
    if (s < 0) throw std::runtime_error("aten/affine_grid_generator: negative size");
  const int64_t batch = size[0];
  if (theta.sizes() != std::vector<int64_t>{batch, spatial, spatial + 1})
    throw std::runtime_error("aten/affine_grid_generator: theta must be [N, 2, 3] or [N, 3, 4]");
  std::vector<int64_t> expected{batch};
  for (size_t d = 2; d < size.size(); ++d) expected.push_back(size[d]);
  expected.push_back(spatial);
  if (out.sizes() != expected) throw std::runtime_error("aten/affine_grid_generator: out has the wrong shape");
  if (out.dtype() != theta.dtype()) throw std::runtime_error("aten/affine_grid_generator: out has the wrong dtype");
  if (out.numel() == 0) return;

  // Coordinates per out dim, innermost (W) first: x(w), x(h)[, x(d)].
  std::vector<std::vector<double>> coords;
  for (int64_t k = 0; k < spatial; ++k) coords.push_back(base_coordinates(size[size.size() - 1 - k], align_corners, theta.dtype()));
  // theta as doubles, [n][k][c] contiguous.
  const int64_t cols = spatial + 1;
  std::vector<double> t(static_cast<size_t>(batch * spatial * cols));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t k = 0; k < spatial; ++k)
      for (int64_t c = 0; c < cols; ++c)
        t[static_cast<size_t>((n * spatial + k) * cols + c)] = theta.get_at(theta.offset_of(std::vector<int64_t>{n, k, c}));
  const std::vector<int64_t>& sizes = out.sizes();
  kgb::parallel_chunks(out.numel(), [&](int64_t first, int64_t last) {
    kgb::OffsetWalker to(out, first);
    std::vector<int64_t> index(sizes.size());
    for (int64_t e = first; e < last; ++e, to.next()) {
      int64_t r = e;
      for (size_t d = index.size(); d-- > 0;) {
        index[d] = r % sizes[d];
        r /= sizes[d];
      }
      // index = [n, (d,) h, w, k]: coordinate c reads index[spatial - c] (w first).
      const double* row = &t[static_cast<size_t>((index[0] * spatial + index.back()) * cols)];
      double sum = row[spatial];
      for (int64_t c = 0; c < spatial; ++c)
        sum += row[c] * coords[static_cast<size_t>(c)][static_cast<size_t>(index[static_cast<size_t>(spatial - c)])];
      out.set_at(to.offset(), sum);
    }
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/affine_grid_generator", affine_grid_generator_reference);
