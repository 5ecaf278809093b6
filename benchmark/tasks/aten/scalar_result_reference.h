// Shared by the references of aten/item and aten/_local_scalar_dense (the
// same op: Tensor.item() is _local_scalar_dense behind the dispatcher): the
// one element of self as the Scalar PyTorch returns: bool -> KGB_BOOL,
// integers -> KGB_I64, floats -> KGB_F64, complex -> KGB_C128, each converted
// exactly (ints as int64, never through double), and the generator of self.
//
// The input generator draws one value per element; the case's dim `special`
// asks for an edge value instead, so that every case holds what its name says
// on every seed:
//   special  floats              complex (re, im)          integers, bool
//   0/absent normal * 1000       both parts normal * 1000  uniform over the dtype's range
//   1        NaN                 (NaN, -1.5)               the dtype's minimum (bool: false)
//   2        -Inf                (+Inf, -Inf)              the dtype's maximum (bool: true)
//   3        -0.0                (-0.0, -0.0)              -1 as the dtype stores it
//   4        smallest subnormal  (subnormal, -subnormal)   i64: 2^53 + 1; others uniform
//   5        -largest finite     (largest, -largest)       uniform
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::scalar_result {


struct IntRange {
  int64_t low, high;
};

inline IntRange range_of(DType t) {
  switch (t) {
    case DType::Bool: return {0, 1};
    case DType::U8: return {0, 255};
    case DType::I8: return {-128, 127};
    case DType::I16: return {-32768, 32767};
    case DType::I32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

// Smallest positive subnormal and largest finite value of a float dtype.
inline double smallest_subnormal(DType t) {
  switch (t) {
    case DType::F16: return std::ldexp(1.0, -24);
    case DType::BF16: return std::ldexp(1.0, -133);
    case DType::F32: case DType::C64: return static_cast<double>(std::numeric_limits<float>::denorm_min());
    default: return std::numeric_limits<double>::denorm_min();
  }
}

inline double largest_finite(DType t) {
  switch (t) {
    case DType::F16: return 65504.0;
    case DType::BF16: return std::ldexp(255.0, 120);  // 0x7F7F: (2 - 2^-7) * 2^127
    case DType::F32: case DType::C64: return static_cast<double>(std::numeric_limits<float>::max());
    default: return std::numeric_limits<double>::max();
  }
}

inline int64_t uniform_int(IntRange r, kgb::SplitMix64& rng) {
  const uint64_t span = static_cast<uint64_t>(r.high) - static_cast<uint64_t>(r.low);
  const uint64_t draw = span == std::numeric_limits<uint64_t>::max() ? rng() : rng() % (span + 1);
  return static_cast<int64_t>(static_cast<uint64_t>(r.low) + draw);
}

inline void generate_self(kgb::GeneratorArgs& g) {
  kgb::HostTensor& t = g.tensor;
  const auto it = g.dims.find("special");
  const int64_t special = it == g.dims.end() ? 0 : it->second;
  const DType dt = t.dtype();
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (kgb::is_complex(dt)) {
      const double tiny = smallest_subnormal(dt), huge = largest_finite(dt);
      std::complex<double> v;
      switch (special) {
        case 1: v = {nan, -1.5}; break;
        case 2: v = {inf, -inf}; break;
        case 3: v = {-0.0, -0.0}; break;
        case 4: v = {tiny, -tiny}; break;
        case 5: v = {huge, -huge}; break;
        default: {
          const double re = 1000 * kgb::standard_normal(g.rng);
          v = {re, 1000 * kgb::standard_normal(g.rng)};
        }
      }
      t.set_complex(i, v);
    } else if (kgb::is_floating(dt)) {
      double v = 0;
      switch (special) {
        case 1: v = nan; break;
        case 2: v = -inf; break;
        case 3: v = -0.0; break;
        case 4: v = smallest_subnormal(dt); break;
        case 5: v = -largest_finite(dt); break;
        default: v = 1000 * kgb::standard_normal(g.rng);
      }
      t.set(i, v);
    } else {
      const IntRange r = range_of(dt);
      int64_t v = 0;
      switch (special) {
        case 1: v = r.low; break;
        case 2: v = r.high; break;
        case 3: v = dt == DType::Bool ? 1 : -1; break;  // u8 stores 255
        case 4: v = dt == DType::I64 ? (int64_t{1} << 53) + 1 : uniform_int(r, g.rng); break;
        default: v = uniform_int(r, g.rng);
      }
      t.set_int(i, v);
    }
  }
}

inline void one_element_scalar(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  if (self.numel() != 1) throw std::runtime_error("item reference: self must have exactly one element");
  kgb_scalar result{};
  const DType dt = self.dtype();
  if (dt == DType::Bool) {
    result.dtype = KGB_BOOL;
    result.v.i = self.get_int(0) != 0;
  } else if (kgb::is_complex(dt)) {
    const std::complex<double> v = self.get_complex(0);
    result.dtype = KGB_C128;
    result.v.c = {v.real(), v.imag()};
  } else if (kgb::is_floating(dt)) {
    result.dtype = KGB_F64;
    result.v.f = self.get(0);
  } else {
    result.dtype = KGB_I64;
    result.v.i = self.get_int(0);
  }
  args.set_scalar("out", result);
}

}  // namespace kgb::scalar_result
