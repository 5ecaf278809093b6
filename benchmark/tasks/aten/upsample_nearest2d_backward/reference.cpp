// Reference for aten/upsample_nearest2d_backward: out[n][c][ih][iw] is the
// sum of grad_output[n][c][oh][ow] over the output positions whose legacy
// nearest source is (ih, iw): ih = min(floor(oh * sh), H - 1) with the
// float32 scale sh = (float)(1 / scales_h) when scales_h is given (> 0), else
// (float)H / (float)OH; the same along the width. Index math in float32 as
// ATen has it; the sums in double, rounded once into out's dtype.
//
// ATen's CPU kernel scatters with that forward rule (special-casing OH == H
// and OH == 2H), its CUDA kernel gathers input position i from output
// positions [ceil(i * s'), min(ceil((i + 1) * s'), OH)) with s' = (float)
// scales_h or (float)OH / H. The task's cases are chosen so that the three
// rules give the same sets; the reference checks that on every case and
// throws when a case leaves that domain.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("aten/upsample_nearest2d_backward: " + what); }

// First output position of every input position along one dimension:
// first[i] .. first[i + 1] - 1 map to i (first[in] = out).
std::vector<int64_t> source_ranges(int64_t in, int64_t out, bool has_scale, double scale) {
  const bool scaled = has_scale && scale > 0;
  const float forward = scaled ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
  std::vector<int64_t> first(static_cast<size_t>(in) + 1, out);
  int64_t next = 0;  // the source rule is non-decreasing in j
  for (int64_t j = 0; j < out; ++j) {
    int64_t src = static_cast<int64_t>(std::floor(static_cast<float>(j) * forward));
    if (src > in - 1) src = in - 1;
    // ATen's CPU special cases (identity, exact halving) must agree.
    if (out == in && src != j) fail("case outside the task's domain: OH == H with a scale other than 1");
    if (out == 2 * in && src != (j >> 1)) fail("case outside the task's domain: OH == 2H with a scale other than 2");
    while (next <= src) first[static_cast<size_t>(next++)] = j;
  }
  // ATen's CUDA gather rule must give the same ranges.
  const float backward = scaled ? static_cast<float>(scale) : static_cast<float>(out) / static_cast<float>(in);
  for (int64_t i = 0; i <= in; ++i) {
    int64_t lo = static_cast<int64_t>(std::ceil(static_cast<float>(i) * backward));
    if (lo > out) lo = out;
    if (i == in) lo = out;
    if (lo != first[static_cast<size_t>(i)])
      fail("case outside the task's domain: ATen's CPU and CUDA index rules differ at input position " + std::to_string(i));
  }
  return first;
}

void upsample_nearest2d_backward_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& grad = args.tensor("grad_output");
  kgb::HostTensor& out = args.tensor("grad_input");
  const std::vector<int64_t>& output_size = args.int_list("output_size");
  const std::vector<int64_t>& input_size = args.int_list("input_size");
  if (output_size.size() != 2 || input_size.size() != 4) fail("output_size needs 2 entries, input_size 4");
  const int64_t N = input_size[0], C = input_size[1], H = input_size[2], W = input_size[3];
  const int64_t OH = output_size[0], OW = output_size[1];
  if (H <= 0 || W <= 0 || OH <= 0 || OW <= 0) fail("spatial sizes must be positive");
  if (out.sizes() != input_size) fail("grad_input must have input_size");
  if (grad.sizes() != std::vector<int64_t>{N, C, OH, OW}) fail("grad_output must be [N, C, OH, OW]");
  const std::vector<int64_t> rows = source_ranges(H, OH, args.has("scales_h"), args.has("scales_h") ? args.scalar("scales_h") : 0);
  const std::vector<int64_t> cols = source_ranges(W, OW, args.has("scales_w"), args.has("scales_w") ? args.scalar("scales_w") : 0);
  const int64_t numel = out.numel();
  if (numel == 0) return;
  const auto& gs = grad.strides();
  const auto& os = out.strides();
  kgb::parallel_chunks(numel, [&](int64_t first, int64_t last) {
    for (int64_t e = first; e < last; ++e) {
      const int64_t iw = e % W, ih = (e / W) % H, c = (e / (W * H)) % C, n = e / (W * H * C);
      const int64_t base = n * gs[0] + c * gs[1];
      double sum = 0;
      for (int64_t oh = rows[static_cast<size_t>(ih)]; oh < rows[static_cast<size_t>(ih) + 1]; ++oh)
        for (int64_t ow = cols[static_cast<size_t>(iw)]; ow < cols[static_cast<size_t>(iw) + 1]; ++ow)
          sum += grad.get_at(base + oh * gs[2] + ow * gs[3]);
      out.set_at(n * os[0] + c * os[1] + ih * os[2] + iw * os[3], sum);
    }
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/upsample_nearest2d_backward", upsample_nearest2d_backward_reference);
