// Reference for aten/amin: the minimum over the listed dimensions of self's
// logical elements, NaN propagating; exact (the result is one of the inputs),
// compared as doubles for floats and as int64 for integers.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "../reduction_inputs.h"
#include "../reduction_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void amin_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  const kgb::reduction::Reduction r =
      kgb::reduction::plan("aten/amin", self, args.int_list("dim"), args.bool_scalar("keepdim"));
  if (out.sizes() != r.out_shape) throw std::runtime_error("aten/amin: out has the wrong shape for dim/keepdim");
  if (r.outputs > 0 && r.length == 0) throw std::runtime_error("aten/amin: a reduced dimension is empty");
  const bool floating = kgb::is_floating(self.dtype());
  kgb::parallel_chunks(r.outputs, [&](int64_t first, int64_t last) {
    for (int64_t o = first; o < last; ++o) {
      if (floating) {
        double best = std::numeric_limits<double>::infinity();
        r.for_slice(o, [&](int64_t off, int64_t) {
          const double v = self.get_at(off);
          if (!std::isnan(best) && (std::isnan(v) || v < best)) best = v;
        });
        out.set(o, best);
      } else {
        int64_t best = std::numeric_limits<int64_t>::max();
        r.for_slice(o, [&](int64_t off, int64_t) {
          const int64_t v = self.get_int_at(off);
          if (v < best) best = v;
        });
        out.set_int(o, best);
      }
    }
  });
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/amin", amin_reference);
KGB_REGISTER_GENERATOR("aten/amin/self", kgb::reduction::values_with_specials);
