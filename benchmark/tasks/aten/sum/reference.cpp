// Reference for aten/sum (`sum`: every element; `sum.dim_IntList`: a list of
// dimensions): floats summed in double, complex in complex<double>, integers
// and bool in exact int64 (wrapping as two's complement), each output rounded
// once into out's dtype (ATen's promotion or the dtype argument). An empty
// slice sums to 0.
#include <complex>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "../reduction_inputs.h"
#include "../reduction_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

std::complex<double> complex_at(const kgb::HostTensor& t, int64_t off) {
  float v[2];
  std::memcpy(v, t.data() + off * 8, sizeof v);
  return {v[0], v[1]};
}

void sum_over(kgb::RefArgs& args, const std::vector<int64_t>& dims, bool keepdim, const char* key) {
  const kgb::HostTensor& self = args.tensor("self");
  kgb::HostTensor& out = args.tensor("out");
  if (args.has("dtype") && static_cast<int64_t>(out.dtype()) != args.int_scalar("dtype"))
    throw std::runtime_error(std::string(key) + ": out's dtype differs from the dtype argument");
  const kgb::reduction::Reduction r = kgb::reduction::plan(key, self, dims, keepdim);
  if (out.sizes() != r.out_shape) throw std::runtime_error(std::string(key) + ": out has the wrong shape");
  const kgb::DType t = self.dtype();
  if (t == kgb::DType::C128) throw std::runtime_error(std::string(key) + ": c128 is not a dtype of this task");
  kgb::parallel_chunks(r.outputs, [&](int64_t first, int64_t last) {
    for (int64_t o = first; o < last; ++o) {
      if (kgb::is_complex(t)) {
        std::complex<double> sum = 0;
        r.for_slice(o, [&](int64_t off, int64_t) { sum += complex_at(self, off); });
        out.set_complex(o, sum);
      } else if (kgb::is_floating(t)) {
        double sum = 0;
        r.for_slice(o, [&](int64_t off, int64_t) { sum += self.get_at(off); });
        out.set(o, sum);
      } else {
        uint64_t sum = 0;  // two's complement wrap-around, as a 64-bit accumulator
        r.for_slice(o, [&](int64_t off, int64_t) { sum += static_cast<uint64_t>(self.get_int_at(off)); });
        out.set_int(o, static_cast<int64_t>(sum));
      }
    }
  });
}

void sum_reference(kgb::RefArgs& args) { sum_over(args, {}, false, "aten/sum"); }

void sum_dim_reference(kgb::RefArgs& args) {
  sum_over(args, args.int_list("dim"), args.bool_scalar("keepdim"), "aten/sum.dim_IntList");
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/sum", sum_reference);
KGB_REGISTER_REFERENCE("aten/sum.dim_IntList", sum_dim_reference);
KGB_REGISTER_GENERATOR("aten/sum/self", kgb::reduction::values_with_specials);
