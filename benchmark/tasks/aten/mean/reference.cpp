// Reference for aten/mean (`mean`: every element; `mean.dim`: a list of
// dimensions): the sum of self's logical values in double (complex<double>),
// divided once by the slice length and rounded once into out's dtype (which
// ATen's dtype argument may widen). An empty slice gives 0/0 = NaN.
#include <complex>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "../reduction_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

// The complex element at storage offset `off` (relative to data()).
std::complex<double> complex_at(const kgb::HostTensor& t, int64_t off) {
  if (t.dtype() == kgb::DType::C64) {
    float v[2];
    std::memcpy(v, t.data() + off * 8, sizeof v);
    return {v[0], v[1]};
  }
  double v[2];
  std::memcpy(v, t.data() + off * 16, sizeof v);
  return {v[0], v[1]};
}

void mean_over(kgb::RefArgs& args, const std::vector<int64_t>& dims, bool keepdim, const char* key) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (args.has("dtype") && static_cast<int64_t>(out.dtype()) != args.int_scalar("dtype"))
    throw std::runtime_error(std::string(key) + ": out's dtype differs from the dtype argument");
  const kgb::reduction::Reduction r = kgb::reduction::plan(key, self, dims, keepdim);
  if (out.sizes() != r.out_shape) throw std::runtime_error(std::string(key) + ": out has the wrong shape");
  const bool complex = kgb::is_complex(self.dtype());
  const double n = static_cast<double>(r.length);
  kgb::parallel_chunks(r.outputs, [&](int64_t first, int64_t last) {
    for (int64_t o = first; o < last; ++o) {
      if (complex) {
        std::complex<double> sum = 0;
        r.for_slice(o, [&](int64_t off, int64_t) { sum += complex_at(self, off); });
        out.set_complex(o, {sum.real() / n, sum.imag() / n});
      } else {
        double sum = 0;
        r.for_slice(o, [&](int64_t off, int64_t) { sum += self.get_at(off); });
        out.set(o, sum / n);
      }
    }
  });
}

void mean_reference(kgb::RefArgs& args) { mean_over(args, {}, false, "aten/mean"); }

void mean_dim_reference(kgb::RefArgs& args) {
  mean_over(args, args.int_list("dim"), args.bool_scalar("keepdim"), "aten/mean.dim");
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/mean", mean_reference);
KGB_REGISTER_REFERENCE("aten/mean.dim", mean_dim_reference);
