// The reference of the harness's own test task, registered in the test binary.
#include <cmath>

#include "kgb/reference.h"

namespace {

void scale_reference(kgb::RefArgs& a) {
  const kgb::HostTensor& x = a.tensor("x");
  kgb::HostTensor& out = a.tensor("out");
  double alpha = a.scalar("alpha");
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (kgb::is_complex(x.dtype())) out.set_complex(i, alpha * x.get_complex(i));
    else if (x.dtype() == kgb::DType::Bool) out.set_int(i, x.get_int(i) != 0 && alpha != 0);
    else if (kgb::is_integral(x.dtype())) out.set_int(i, x.get_int(i) * static_cast<int64_t>(alpha));
    else out.set(i, alpha * x.get(i));
  }
}

KGB_REGISTER_REFERENCE("test/scale", scale_reference);

}  // namespace

namespace {

// test/v2mix: see its spec. Sums in item order, in double, as the kernels do.
void v2mix_reference(kgb::RefArgs& a) {
  const auto& xs = a.list("xs");
  const kgb::HostTensor* bias = a.optional_tensor("bias");
  kgb::HostTensor& out = a.tensor("out");
  const double scale = a.scalar("scale");
  const double shift = a.has("shift") ? a.scalar("shift") : 0.0;
  const double sign = a.enum_name("mode") == "plus" ? 1.0 : -1.0;
  int64_t positives = 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    double sum = 0;
    for (const kgb::HostTensor* x : xs) sum += x->get(i);
    const double v = scale * sum + sign * (bias ? bias->get(i) : 0.0) + shift;
    out.set(i, v);
    positives += v > 0;
  }
  kgb_scalar result{};
  result.dtype = KGB_I64;
  result.v.i = positives;
  a.set_scalar("positives", result);
}

void v2mix_scalar_reference(kgb::RefArgs& a) {
  const kgb::HostTensor& x = a.tensor("x");
  kgb::HostTensor& out = a.tensor("out");
  const double other = a.scalar("other");
  for (int64_t i = 0; i < out.numel(); ++i) out.set(i, x.get(i) * other);
}

KGB_REGISTER_REFERENCE("test/v2mix", v2mix_reference);
KGB_REGISTER_REFERENCE("test/v2mix.Scalar", v2mix_scalar_reference);

}  // namespace
