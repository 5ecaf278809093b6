// Shared by the references of ATen's fill and creation tasks (fill_, zero_,
// zeros, full, scalar_tensor, new_ones, ones_like, zeros_like): the value ATen
// stores when it converts a Scalar into a tensor's dtype (c10::Scalar::to<T>,
// c10::convert), written into every element of a view.
//   float targets   from a double: f32 and f64 round once; f16 and bf16 go
//                   through float first (c10::Half and c10::BFloat16 are built
//                   from a float), so they round twice
//   integer targets from a double: truncation toward zero; from an int64:
//                   two's-complement wrap (u8 takes -1 as 255)
//   bool            value != 0
//   complex         (re, im), each part rounded to the part type; a real value
//                   has im = 0
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kgb/dtype.h"
#include "kgb/tensor.h"
#include "kgb_kernel.h"

namespace kgb::fill {

// `v` as the logical value of one element of dtype `t`, written at linear
// index i of `out` (the view's own layout: only the view's elements change).
inline void store(HostTensor& out, int64_t i, const kgb_scalar& v) {
  const DType t = out.dtype();
  const bool complex_value = v.dtype == KGB_C128;
  if (is_complex(t)) {
    std::complex<double> c = complex_value ? std::complex<double>(v.v.c.re, v.v.c.im)
                             : v.dtype == KGB_F64 ? std::complex<double>(v.v.f, 0.0)
                                                  : std::complex<double>(static_cast<double>(v.v.i), 0.0);
    if (t == DType::C64) c = {static_cast<float>(c.real()), static_cast<float>(c.imag())};
    out.set_complex(i, c);
    return;
  }
  if (complex_value && v.v.c.im != 0)
    throw std::runtime_error("fill reference: a complex value with an imaginary part into a real dtype");
  if (t == DType::Bool) {
    const bool nonzero = complex_value ? v.v.c.re != 0 : v.dtype == KGB_F64 ? v.v.f != 0 : v.v.i != 0;
    out.set_int(i, nonzero ? 1 : 0);
    return;
  }
  if (is_floating(t)) {
    double x = complex_value ? v.v.c.re : v.dtype == KGB_F64 ? v.v.f : static_cast<double>(v.v.i);
    if (t == DType::F16 || t == DType::BF16 || t == DType::F32) x = static_cast<double>(static_cast<float>(x));
    out.set(i, x);
    return;
  }
  // Integers: an integral value wraps into the dtype's width, a floating one truncates.
  int64_t x = v.v.i;
  if (v.dtype == KGB_F64 || complex_value) {
    const double d = complex_value ? v.v.c.re : v.v.f;
    if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) throw std::runtime_error("fill reference: value out of the integer range");
    x = static_cast<int64_t>(std::trunc(d));
  }
  switch (t) {
    case DType::U8: x = static_cast<uint8_t>(x); break;
    case DType::I8: x = static_cast<int8_t>(x); break;
    case DType::I16: x = static_cast<int16_t>(x); break;
    case DType::I32: x = static_cast<int32_t>(x); break;
    default: break;
  }
  out.set_int(i, x);
}

// Every element of the view `out` set to `v`; storage outside the view keeps its bytes.
inline void fill(HostTensor& out, const kgb_scalar& v) {
  for (int64_t i = 0; i < out.numel(); ++i) store(out, i, v);
}

inline kgb_scalar int_value(int64_t i) {
  kgb_scalar s{};
  s.dtype = KGB_I64;
  s.v.i = i;
  return s;
}

// The dtype an enum argument names (the creation tasks' `dtype` enums use
// the dtype names).
inline DType dtype_named(const std::string& name) {
  const auto t = parse_dtype(name);
  if (!t) throw std::runtime_error("fill reference: unknown dtype name '" + name + "'");
  return *t;
}

// A case whose out dtype differs from the one ATen would choose is a task bug.
inline void expect_dtype(const HostTensor& out, DType expected, const std::string& task) {
  if (out.dtype() != expected)
    throw std::runtime_error(task + ": out is " + std::string(dtype_name(out.dtype())) + " but ATen gives " +
                             std::string(dtype_name(expected)));
}

}  // namespace kgb::fill
