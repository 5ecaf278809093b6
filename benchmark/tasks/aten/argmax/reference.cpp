// Reference for aten/argmax: the logical position of the largest element of
// each slice (dim given) or of the flattened tensor (dim None); NaN is the
// largest value, the first position wins among equals. Values compare as
// doubles (exact for every float dtype) or int64.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "../reduction_inputs.h"
#include "../reduction_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void argmax_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  std::vector<int64_t> dims;  // None: every dimension, in order (the flattened position)
  if (args.has("dim")) dims.push_back(args.int_scalar("dim"));
  const kgb::reduction::Reduction r =
      kgb::reduction::plan("aten/argmax", self, dims, args.bool_scalar("keepdim"));
  if (out.sizes() != r.out_shape) throw std::runtime_error("aten/argmax: out has the wrong shape for dim/keepdim");
  if (r.outputs > 0 && r.length == 0) throw std::runtime_error("aten/argmax: the reduced dimension is empty");
  const bool floating = kgb::is_floating(self.dtype());
  kgb::parallel_chunks(r.outputs, [&](int64_t first, int64_t last) {
    for (int64_t o = first; o < last; ++o) {
      int64_t best_k = -1;
      if (floating) {
        double best = 0;
        r.for_slice(o, [&](int64_t off, int64_t k) {
          const double v = self.get_at(off);
          if (best_k < 0 || (!std::isnan(best) && (std::isnan(v) || v > best))) best = v, best_k = k;
        });
      } else {
        int64_t best = 0;
        r.for_slice(o, [&](int64_t off, int64_t k) {
          const int64_t v = self.get_int_at(off);
          if (best_k < 0 || v > best) best = v, best_k = k;
        });
      }
      out.set_int(o, best_k);
    }
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/argmax", argmax_reference);
KGB_REGISTER_GENERATOR("aten/argmax/self", kgb::reduction::values_with_specials);
