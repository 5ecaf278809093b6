// Shared by the references of ATen's promoting binary ops (eq, gt, le, div,
// floor_divide, pow, ...): the dtype ATen computes in (torch.result_type of
// the operands, as kgb/numerics.h states it), and the conversions of an
// operand into that dtype. Values stay doubles or exact int64 on logical
// indices; the maps of pointwise_reference.h do the broadcasting.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/numerics.h"
#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"
#include "kgb_kernel.h"
#include "pointwise_reference.h"

namespace kgb::pointwise {

// A tensor as a torch.result_type operand: zero-dim tensors rank below dimensioned ones.
inline Operand operand_of(const HostTensor& t) {
  return {t.dtype(), t.rank() == 0 ? OperandKind::ZeroDimTensor : OperandKind::Tensor};
}
// An ATen Scalar: only its category counts (bool, integer -> i64, float -> f64 scalar).
inline Operand operand_of(const kgb_scalar& s) {
  const DType d = s.dtype == KGB_F64 ? DType::F64 : (s.dtype == KGB_BOOL ? DType::Bool : DType::I64);
  return {d, OperandKind::Scalar};
}

inline DType common_dtype(const std::vector<Operand>& operands, const std::string& task) {
  auto r = result_type(operands);
  if (!r) throw std::runtime_error(task + ": " + r.error().message);
  return *r;
}

// An ATen Scalar as the kernels see it: converted straight into the
// computation type (float for f16/bf16/f32, double for f64), as ATen's CUDA
// kernels read a CPU scalar operand, never rounded to a 16-bit dtype.
inline double scalar_in(DType compute, const kgb_scalar& s) {
  const double v = s.dtype == KGB_F64 ? s.v.f : static_cast<double>(s.v.i);
  return compute == DType::F64 ? v : static_cast<double>(static_cast<float>(v));
}

// Input values for these tasks' custom generators: `real` draws each value of
// a floating tensor, `integer` each value of an integer or bool one (bool
// stores value != 0). On floating tensors of at least 8 elements a share of
// the values is then replaced by NaN, +inf and -inf in turn (at least one of
// each kind's turn); smaller tensors, rank-0 and one-element operands above
// all, stay finite, where the dist modifier `special` would make their only
// element NaN and the whole output NaN.
template <typename Real, typename Integer>
void fill_operand(GeneratorArgs& g, Real real, Integer integer, double special_share) {
  HostTensor& t = g.tensor;
  const int64_t n = t.numel();
  if (is_floating(t.dtype())) {
    for (int64_t i = 0; i < n; ++i) t.set(i, real(g.rng));
    if (n < 8 || special_share <= 0) return;
    const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity()};
    const int64_t k = std::max<int64_t>(3, static_cast<int64_t>(special_share * static_cast<double>(n)));
    for (int64_t j = 0; j < k; ++j) t.set(static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n)), specials[j % 3]);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = integer(g.rng);
      t.set_int(i, t.dtype() == DType::Bool ? (v != 0) : v);
    }
  }
}

// A uniformly drawn integer in [low, high].
inline int64_t uniform_int(SplitMix64& rng, int64_t low, int64_t high) {
  return low + static_cast<int64_t>(rng() % static_cast<uint64_t>(high - low + 1));
}

// ---- floor division (div rounding_mode "floor", floor_divide) -----------------

// ATen's div_floor_floating: the floor of the exact quotient, from fmod, so a
// quotient that rounds up to an integer does not floor to it; b == 0 gives
// the IEEE a / b; a zero result takes the sign of a / b.
template <typename F>
F floor_divide_floating(F a, F b) {
  if (b == F(0)) return a / b;
  const F mod = std::fmod(a, b);
  F div = (a - mod) / b;
  if (mod != F(0) && (b < F(0)) != (mod < F(0))) div -= F(1);
  if (div == F(0)) return std::copysign(F(0), a / b);
  F floordiv = std::floor(div);
  if (div - floordiv > F(0.5)) floordiv += F(1);
  return floordiv;
}

// Python's // on integers (b != 0).
inline int64_t floor_divide_integer(int64_t a, int64_t b) {
  if (b == 0) throw std::runtime_error("integer division by zero (the spec excludes it)");
  const int64_t q = a / b, r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q;
}

// ---- div's rounding modes (div, div_) ----------------------------------------

// rounding_mode of div.Tensor_mode / Scalar_mode (absent: None, true division).
enum class DivMode { True, Trunc, Floor };
inline DivMode div_mode_of(const RefArgs& args, const std::string& task) {
  if (!args.has("rounding_mode")) return DivMode::True;
  const std::string& name = args.enum_name("rounding_mode");
  if (name == "trunc") return DivMode::Trunc;
  if (name == "floor") return DivMode::Floor;
  throw std::runtime_error(task + ": unknown rounding_mode " + name);
}

// a / b with `mode` in the floating `compute` dtype (operands already rounded
// to it): true division in double (rounded once into out by the map); "trunc"
// and "floor" round the quotient in the computation type (float for
// f16/bf16/f32), "trunc" in f16/bf16 rounds the quotient to 16 bits first, as
// ATen divides in that dtype.
inline double divide_floating(double a, double b, DivMode mode, DType compute) {
  if (mode == DivMode::True) return a / b;
  if (compute == DType::F64) return mode == DivMode::Trunc ? std::trunc(a / b) : floor_divide_floating(a, b);
  const float x = static_cast<float>(a), y = static_cast<float>(b);
  if (mode == DivMode::Floor) return floor_divide_floating(x, y);
  if (compute != DType::F32) return std::trunc(round_to(compute, static_cast<double>(x / y)));
  return std::trunc(x / y);
}
inline int64_t divide_integer(int64_t a, int64_t b, DivMode mode) {
  if (mode == DivMode::Floor) return floor_divide_integer(a, b);
  if (b == 0) throw std::runtime_error("integer division by zero (the spec excludes it)");
  return a / b;
}

// Generators of dividends and divisors: dividends normal (stddev 8; integers
// rounded), divisors stddev 4 and never 0 (no integer zero divisors); 3%
// NaN/+-inf on floating tensors. A one-element operand (rank 0, size 1) draws
// |dividend| in [4, 20) and |divisor| in [1, 3.4), so that its single
// quotient is never 0.
inline double signed_magnitude(SplitMix64& rng, double low, double high) {
  const double m = low + (high - low) * uniform_open01(rng);
  return (rng() & 1) ? -m : m;
}
inline void fill_dividends(GeneratorArgs& g) {
  const bool single = g.tensor.numel() == 1;
  auto draw = [single](SplitMix64& rng) { return single ? signed_magnitude(rng, 4.0, 20.0) : 8.0 * standard_normal(rng); };
  fill_operand(g, draw, [&](SplitMix64& rng) { return std::llround(draw(rng)); }, 0.03);
}
inline void fill_divisors(GeneratorArgs& g) {
  const bool single = g.tensor.numel() == 1;
  auto draw = [single](SplitMix64& rng) {
    if (single) return signed_magnitude(rng, 1.0, 3.4);
    for (;;)
      if (const double v = 4.0 * standard_normal(rng); std::llround(v) != 0) return v;
  };
  fill_operand(g, draw, [&](SplitMix64& rng) { return std::llround(draw(rng)); }, 0.03);
}

// ---- the map every binary reference uses -------------------------------------

// out = f(a, b) elementwise, b a tensor or (b == nullptr) the Scalar `bs`. A
// floating `compute` dtype maps doubles: tensor operands rounded to it first,
// the Scalar read into it as the kernels do (scalar_in), `real` returns the
// result before its one rounding into out's dtype. Otherwise `integer` maps
// exact int64 values.
template <typename Real, typename Integer>
void binary_map(const HostTensor& a, const HostTensor* b, const kgb_scalar* bs, HostTensor& out, DType compute, Real real,
                Integer integer) {
  std::vector<const HostTensor*> inputs{&a};
  if (b) inputs.push_back(b);
  if (is_floating(compute)) {
    const double scalar = b ? 0.0 : scalar_in(compute, *bs);
    map_doubles(inputs, out, [&](const std::vector<double>& v) {
      return real(round_to(compute, v[0]), b ? round_to(compute, v[1]) : scalar);
    });
  } else {
    const int64_t scalar = b ? 0 : bs->v.i;
    map_ints(inputs, out, [&](const std::vector<int64_t>& v) -> int64_t { return integer(v[0], b ? v[1] : scalar); });
  }
}

// ---- comparisons (eq, gt, le) --------------------------------------------------

// out = rel(self, other) as bool in the common dtype: every operand converted
// to it first (integers into f16 round), then compared exactly; NaN compares
// false. `other` is a tensor, or nullptr for the Scalar `scalar`.
template <typename Rel>
void compare_reference(RefArgs& args, const HostTensor* other, const kgb_scalar* scalar, Rel rel, const std::string& task) {
  const HostTensor& self = args.tensor("self");
  const DType common = common_dtype({operand_of(self), other ? operand_of(*other) : operand_of(*scalar)}, task);
  binary_map(self, other, scalar, args.tensor("out"), common, [&](double a, double b) { return rel(a, b) ? 1.0 : 0.0; },
             [&](int64_t a, int64_t b) -> int64_t { return rel(a, b); });
}

// Integers in [-3, 3], so that ties are frequent, and 5% NaN/+-inf on floating tensors.
inline void fill_small_integers(GeneratorArgs& g) {
  auto draw = [](SplitMix64& rng) { return uniform_int(rng, -3, 3); };
  fill_operand(g, [&](SplitMix64& rng) { return static_cast<double>(draw(rng)); }, draw, 0.05);
}

}  // namespace kgb::pointwise
