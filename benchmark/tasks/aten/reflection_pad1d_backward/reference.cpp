// Reference for aten/reflection_pad1d_backward: the gradient of reflection
// padding along the last dimension. Output position x of the padded row came
// from input position reflect(x - pad_left), reflect(q) = -q for q < 0,
// 2 (W - 1) - q for q >= W, else q; so grad_input[..., i] is the sum of
// grad_output[..., x] over the (at most three) x that reflect onto i. Sums in
// double, rounded once into grad_input's dtype.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("aten/reflection_pad1d_backward: " + what); }

void reflection_pad1d_backward_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& grad = args.tensor("grad_output");
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("grad_input");
  const std::vector<int64_t>& padding = args.int_list("padding");
  if (padding.size() != 2) fail("padding needs 2 entries");
  const int rank = self.rank();
  if (rank != 2 && rank != 3) fail("self must be 2-D or 3-D");
  const int64_t W = self.sizes().back(), pl = padding[0], pr = padding[1], OW = W + pl + pr;
  if (pl >= W || pr >= W) fail("padding must be smaller than the input width");
  if (pl <= -W || pr <= -W) fail("case outside the task's domain: padding <= -W");
  if (out.sizes() != self.sizes()) fail("grad_input must have self's shape");
  std::vector<int64_t> want = self.sizes();
  want.back() = OW;
  if (grad.sizes() != want) fail("grad_output must be self's shape with width W + pad_left + pad_right");
  const int64_t numel = out.numel();
  if (numel == 0) return;
  const int64_t rows = numel / W;
  const int64_t R1 = rank == 3 ? self.sizes()[1] : rows;  // rows per batch
  auto row_offset = [&](const kgb::HostTensor& t, int64_t r) {
    return rank == 3 ? (r / R1) * t.strides()[0] + (r % R1) * t.strides()[1] : r * t.strides()[0];
  };
  const int64_t gw = grad.strides().back(), ow = out.strides().back();
  kgb::parallel_chunks(rows, [&](int64_t first, int64_t last) {
    std::vector<double> acc(static_cast<size_t>(W));
    for (int64_t r = first; r < last; ++r) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const int64_t gbase = row_offset(grad, r);
      for (int64_t x = 0; x < OW; ++x) {
        int64_t q = x - pl;
        q = q < 0 ? -q : (q >= W ? 2 * (W - 1) - q : q);
        if (q < 0 || q >= W) fail("case outside the task's domain: reflected position out of range");
        acc[static_cast<size_t>(q)] += grad.get_at(gbase + x * gw);
      }
      const int64_t obase = row_offset(out, r);
      for (int64_t i = 0; i < W; ++i) out.set_at(obase + i * ow, acc[static_cast<size_t>(i)]);
    }
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/reflection_pad1d_backward", reflection_pad1d_backward_reference);
