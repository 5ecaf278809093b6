// The Tensor and Scalar entries of ATen's binary pointwise references with
// type promotion (add, sub, rsub, mul, fmax, heaviside, add_, div_): the
// result is computed in double from the inputs' own values when out is a
// float dtype (no input is rounded to out's dtype first, as ATen's CUDA
// kernels load them) and rounded once; exactly in int64 otherwise. Each
// reference passes its scalar function twice: `f` on doubles, `fi` on int64.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "pointwise_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::pointwise {

// out = f(a, b) with a and b broadcast to out (out may be a or b: in-place ops).
template <class F, class FI>
void binary_tensors(const HostTensor& a, const HostTensor& b, HostTensor& out, F f, FI fi) {
  if (is_floating(out.dtype())) {
    map_doubles({&a, &b}, out, [&](const std::vector<double>& v) { return f(v[0], v[1]); });
    return;
  }
  map_ints({&a, &b}, out, [&](const std::vector<int64_t>& v) { return fi(v[0], v[1]); });
}

// out = f(a, b) with b an ATen Scalar argument.
template <class F, class FI>
void binary_scalar(const RefArgs& args, const HostTensor& a, const std::string& b_name, HostTensor& out, F f, FI fi) {
  if (is_floating(out.dtype())) {
    const double b = args.scalar(b_name);
    map_doubles({&a}, out, [&](const std::vector<double>& v) { return f(v[0], b); });
    return;
  }
  const int64_t b = args.int_scalar(b_name);
  map_ints({&a}, out, [&](const std::vector<int64_t>& v) { return fi(v[0], b); });
}

// A Scalar that must be integral for an integer result (ATen rejects a
// floating alpha there; a spec that sends one is a bug of the spec).
inline int64_t integral_scalar(const RefArgs& args, const std::string& name) {
  const double v = args.scalar(name);
  if (v != std::floor(v)) throw std::runtime_error("non-integral Scalar '" + name + "' for an integer result");
  return static_cast<int64_t>(v);
}

}  // namespace kgb::pointwise
