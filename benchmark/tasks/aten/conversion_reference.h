// Shared by the references of ATen's dtype conversions (aten/_to_copy,
// aten/to): the layout ATen gives a converted copy (memory_format=preserve),
// the element conversion of ATen's copy kernels, and the input values that
// exercise it. Conversions are C casts, as c10's types define them:
// - into f32/f64: rounded once from the exact source value (an i64 into f32
//   rounds directly, not through double);
// - into f16/bf16: through float, as c10::Half and c10::BFloat16 convert
//   (f64 and i64 sources round to float first, then to 16 bits);
// - floats into integers truncate toward zero; NaN, infinities and values
//   outside the target's range are undefined (the inputs never hold them);
// - i64 into i32 keeps the low 32 bits (two's complement);
// - anything into bool is value != 0 (NaN is true, -0.0 false); bool is 0/1.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/random.h"
#include "kgb/tensor.h"
#include "layout_reference.h"

namespace kgb::conversion {

// ATen's infer_dense_strides: the dims ordered by stride as TensorIterator
// orders them (a stable insertion sort from the innermost dim; a stride-0 dim
// never moves; equal strides put the smaller size inside), then dense strides
// in that order. A size-0 dim counts as size 1.
inline std::vector<int64_t> infer_dense_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  const size_t rank = sizes.size();
  if (rank == 0) return {};
  if (rank == 1) return {1};
  std::vector<size_t> perm(rank);
  std::iota(perm.rbegin(), perm.rend(), 0);  // rank-1, ..., 0: innermost first
  auto should_swap = [&](size_t d0, size_t d1) {
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] < strides[d1]) return -1;
    if (strides[d0] > strides[d1]) return 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (size_t i = 1; i < rank; ++i) {
    size_t d1 = i;
    for (size_t j = 1; j <= i; ++j) {
      const size_t d0 = i - j;
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  std::vector<int64_t> out(rank);
  int64_t stride = 1;
  for (size_t d : perm) {
    out[d] = stride;
    if (sizes[d] > 1) stride *= sizes[d];
  }
  return out;
}

// The strides of _to_copy's result with memory_format=preserve: self's own
// when self is non-overlapping and dense, else infer_dense_strides (a
// padded transpose stays a transpose, a broadcast or stepped row-major view
// becomes row-major).
inline std::vector<int64_t> preserve_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if (layout::is_non_overlapping_and_dense(sizes, strides)) return strides;
  return infer_dense_strides(sizes, strides);
}

// A case whose out layout is not the preserve layout is a task bug. Only dims
// of size > 1 place elements; a tensor of at most one element has any layout.
inline void expect_preserve_layout(const HostTensor& self, const HostTensor& out, const std::string& task) {
  if (self.numel() <= 1) return;
  const std::vector<int64_t> want = preserve_strides(self.sizes(), self.strides());
  for (int d = 0; d < self.rank(); ++d)
    if (self.sizes()[d] > 1 && out.strides()[d] != want[d])
      throw std::runtime_error(task + ": the case's out layout is not ATen's preserve layout (dim " + std::to_string(d) + ")");
}

// out[i] = self[i] converted as ATen's copy kernels convert (header comment).
inline void convert(const HostTensor& self, HostTensor& out, const std::string& task) {
  const int64_t n = self.numel();
  if (n == 0) return;
  const DType to = out.dtype();
  OffsetWalker from(self, 0), at(out, 0);
  for (int64_t i = 0; i < n; ++i, from.next(), at.next()) {
    const int64_t e = at.offset();
    if (is_floating(self.dtype())) {
      const double v = self.get_at(from.offset());  // exact for every float dtype
      switch (to) {
        case DType::F16: case DType::BF16: out.set_at(e, static_cast<double>(static_cast<float>(v))); break;
        case DType::Bool: out.set_int_at(e, v != 0 || std::isnan(v) ? 1 : 0); break;
        case DType::I32: case DType::I64: {
          const double limit = to == DType::I32 ? 2147483648.0 : 9223372036854775808.0;
          const double t = std::trunc(v);
          if (!(t < limit && t >= -limit)) throw std::runtime_error(task + ": an input value has no defined integer conversion");
          out.set_int_at(e, static_cast<int64_t>(t));
          break;
        }
        default: out.set_at(e, v); break;  // f32 rounds once, f64 is exact
      }
    } else {
      const int64_t v = self.get_int_at(from.offset());  // bool reads as 0/1
      switch (to) {
        case DType::F32: case DType::F16: case DType::BF16: out.set_at(e, static_cast<double>(static_cast<float>(v))); break;
        case DType::F64: out.set_at(e, static_cast<double>(v)); break;
        case DType::I32: out.set_int_at(e, static_cast<int32_t>(static_cast<uint32_t>(v))); break;
        default: out.set_int_at(e, v); break;  // i64 exact, bool v != 0
      }
    }
  }
}

// Input values that reach every rule above, for a self of dtype S converted
// to T (the case's type variables):
// - floats into floats or bool: normal values (stddev 100) mixed with zeros of
//   both signs, values past f16's range (1e5..1e6) and below its normal range
//   (1e-9..1e-5), and a share of NaN/+-inf on tensors of 8 elements or more;
// - floats into integers: values with fractions of both signs, |x| < 1e9 for
//   i32/i64 targets from f32/f64 (always in range), never NaN or infinity;
// - integers: small values (-3..3, zeros included), rounded normals, and
//   values spread over the whole dtype (i64 up to 2^62: f16 overflow, i32
//   wrap, double rounding through float);
// - bool: 0 or 1.
inline void fill_values(GeneratorArgs& g) {
  HostTensor& t = g.tensor;
  const DType target = g.dtypes.at("T");
  const int64_t n = t.numel();
  auto uniform = [&g]() { return static_cast<double>(g.rng() >> 11) * 0x1.0p-53; };
  auto sign = [&g]() { return (g.rng() & 1) ? -1.0 : 1.0; };
  if (t.dtype() == DType::Bool) {
    for (int64_t i = 0; i < n; ++i) t.set_int(i, static_cast<int64_t>(g.rng() & 1));
  } else if (is_floating(t.dtype())) {
    const bool to_integer = target == DType::I32 || target == DType::I64;
    for (int64_t i = 0; i < n; ++i) {
      const double u = uniform();
      double v;
      if (to_integer) {
        if (u < 0.15) v = sign() * uniform();  // |v| < 1: truncates to 0
        else if (u < 0.3 && (t.dtype() == DType::F32 || t.dtype() == DType::F64)) v = sign() * 1e9 * uniform();
        else v = 100.0 * standard_normal(g.rng) + 0.5 * sign() * uniform();
      } else {
        if (u < 0.1) v = sign() * 0.0;
        else if (u < 0.15) v = sign() * (1e5 + 9e5 * uniform());
        else if (u < 0.2) v = sign() * std::pow(10.0, -9.0 + 4.0 * uniform());
        else v = 100.0 * standard_normal(g.rng);
      }
      t.set(i, v);
    }
    if (!to_integer && n >= 8) {
      const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity()};
      const int64_t k = std::max<int64_t>(3, n / 32);
      for (int64_t j = 0; j < k; ++j) t.set(static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n)), specials[j % 3]);
    }
  } else {
    const int bits = t.dtype() == DType::I32 ? 31 : 62;
    for (int64_t i = 0; i < n; ++i) {
      const double u = uniform();
      int64_t v;
      if (u < 0.3) v = static_cast<int64_t>(g.rng() % 7) - 3;
      else if (u < 0.7) v = std::llround(100.0 * standard_normal(g.rng));
      else v = static_cast<int64_t>(g.rng() >> (64 - bits)) * (sign() < 0 ? -1 : 1);
      t.set_int(i, v);
    }
  }
}

}  // namespace kgb::conversion
