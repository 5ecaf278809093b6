// Reference for aten/fill_: every element of the view self set to the value
// converted as c10::Scalar::to<T> does (fill_reference.h); .Tensor takes the
// value from a rank-0 tensor of self's dtype, bit for bit.
//
// The .Tensor value generator ("aten/fill_/value") draws one element; the
// case's dim `special` asks for an edge value instead:
//   special  floats and complex          integers           bool
//   0/absent normal * 100 (both parts)   uniform -100..100  uniform
//                                        (u8: 0..200)
//   1        +Inf (complex: (+Inf, NaN))
//   2        -Inf (complex: (-Inf, +Inf))
// (an all-NaN output would read as degenerate to the validator: NaN rides in
// the imaginary part)
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>

#include "../fill_reference.h"
#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

void generate_value(kgb::GeneratorArgs& g) {
  kgb::HostTensor& t = g.tensor;
  const auto it = g.dims.find("special");
  const int64_t special = it == g.dims.end() ? 0 : it->second;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const kgb::DType dt = t.dtype();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (kgb::is_complex(dt)) {
      const double re = 100 * kgb::standard_normal(g.rng), im = 100 * kgb::standard_normal(g.rng);
      t.set_complex(i, special == 1 ? std::complex<double>(inf, nan)
                       : special == 2 ? std::complex<double>(-inf, inf)
                                      : std::complex<double>(re, im));
    } else if (kgb::is_floating(dt)) {
      t.set(i, special == 1 ? inf : special == 2 ? -inf : 100 * kgb::standard_normal(g.rng));
    } else if (dt == kgb::DType::Bool) {
      t.set_int(i, static_cast<int64_t>(g.rng() & 1));
    } else {
      const int64_t draw = static_cast<int64_t>(g.rng() % 201);
      t.set_int(i, dt == kgb::DType::U8 ? draw : draw - 100);
    }
  }
}

void fill_scalar_reference(kgb::RefArgs& args) { kgb::fill::fill(args.tensor("self"), args.aten_scalar("value")); }

void fill_tensor_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& value = args.tensor("value");
  if (value.rank() != 0) throw std::runtime_error("aten/fill_.Tensor: value must be a rank-0 tensor");
  kgb::HostTensor& self = args.tensor("self");
  // Same dtype: the element's bits, whatever they are.
  for (int64_t i = 0; i < self.numel(); ++i) {
    if (kgb::is_complex(self.dtype())) self.set_complex(i, value.get_complex(0));
    else if (kgb::is_floating(self.dtype())) self.set(i, value.get(0));
    else self.set_int(i, value.get_int(0));
  }
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/fill_/value", generate_value);
KGB_REGISTER_REFERENCE("aten/fill_", fill_scalar_reference);
KGB_REGISTER_REFERENCE("aten/fill_.Tensor", fill_tensor_reference);
