// Reference for aten/diff: ATen's diff. With n > 0 the sequence along dim is
// prepend, self, append joined (cat); then n difference steps (n clipped to
// the joined length), each a separate tensor operation whose result is
// rounded to the dtype before the next one: floats subtract in float (f16,
// bf16 and f32) or double (f64), 16-bit results rounding after every step;
// integers wrap; bool steps are a != b. n == 0 is a copy of self (prepend and
// append ignored, as ATen's diff does).
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

using kgb::DType;
using kgb::HostTensor;

// a - b as one ATen subtraction in dtype t, rounded to t.
double float_step(DType t, double a, double b) {
  switch (t) {
    case DType::F64: return a - b;
    case DType::F16: return kgb::half_to_float(kgb::float_to_half(static_cast<float>(a) - static_cast<float>(b)));
    case DType::BF16: return kgb::bfloat16_to_float(kgb::float_to_bfloat16(static_cast<float>(a) - static_cast<float>(b)));
    default: return static_cast<double>(static_cast<float>(a) - static_cast<float>(b));
  }
}
int64_t int_step(DType t, int64_t a, int64_t b) {
  if (t == DType::Bool) return a != b ? 1 : 0;
  const uint64_t d = static_cast<uint64_t>(a) - static_cast<uint64_t>(b);
  return t == DType::I32 ? static_cast<int32_t>(static_cast<uint32_t>(d)) : static_cast<int64_t>(d);
}

// The joined pieces along dim, in order: (tensor, its length along dim).
struct Piece {
  const HostTensor* t;
  int64_t len;
};

void diff_reference(kgb::RefArgs& args) {
  const HostTensor& self = args.tensor("self");
  HostTensor& out = args.tensor("out");
  const int rank = self.rank();
  if (rank < 1) throw std::runtime_error("aten/diff: self must have at least one dimension");
  int64_t dim = args.int_scalar("dim");
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) throw std::runtime_error("aten/diff: dim out of range");
  int64_t n = args.int_scalar("n");
  if (n < 0) throw std::runtime_error("aten/diff: n must be non-negative");
  std::vector<Piece> pieces;
  for (const char* name : {"prepend", "self", "append"}) {
    const HostTensor* t = std::string(name) == "self" ? &self : args.optional_tensor(name);
    if (!t || (n == 0 && t != &self)) continue;
    if (t->rank() != rank || t->dtype() != self.dtype()) throw std::runtime_error(std::string("aten/diff: ") + name + " must match self's rank and dtype");
    for (int d = 0; d < rank; ++d)
      if (d != dim && t->sizes()[d] != self.sizes()[d]) throw std::runtime_error(std::string("aten/diff: ") + name + " must match self's sizes off dim");
    pieces.push_back({t, t->sizes()[dim]});
  }
  int64_t joined = 0;
  for (const Piece& p : pieces) joined += p.len;
  if (n > joined) n = joined;
  std::vector<int64_t> want = self.sizes();
  want[dim] = joined - n;
  if (out.sizes() != want) throw std::runtime_error("aten/diff: the case's out shape is not diff's");

  // One line per index of the other dims.
  std::vector<int64_t> index(rank, 0), line_sizes = self.sizes();
  line_sizes[dim] = 1;
  int64_t lines = 1;
  for (int64_t s : line_sizes) lines *= s;
  const DType t = self.dtype();
  const bool floating = kgb::is_floating(t);
  std::vector<double> xf(joined);
  std::vector<int64_t> xi(joined);
  for (int64_t line = 0; line < lines && want[dim] > 0; ++line) {
    int64_t k = 0;
    for (const Piece& p : pieces) {
      const int64_t base = p.t->offset_of(index), stride = p.t->strides()[dim];
      for (int64_t j = 0; j < p.len; ++j, ++k) {
        if (floating) xf[k] = p.t->get_at(base + j * stride);
        else xi[k] = p.t->get_int_at(base + j * stride);
      }
    }
    for (int64_t step = 0, len = joined; step < n; ++step, --len)
      for (int64_t j = 0; j + 1 < len; ++j) {
        if (floating) xf[j] = float_step(t, xf[j + 1], xf[j]);
        else xi[j] = int_step(t, xi[j + 1], xi[j]);
      }
    const int64_t base = out.offset_of(index), stride = out.strides()[dim];
    for (int64_t j = 0; j < want[dim]; ++j) {
      if (floating) out.set_at(base + j * stride, xf[j]);
      else out.set_int_at(base + j * stride, xi[j]);
    }
    for (int d = rank - 1; d >= 0; --d) {  // next line
      if (d == dim) continue;
      if (++index[d] < line_sizes[d]) break;
      index[d] = 0;
    }
  }
}

// Floats: normal values (stddev 10), with a share of NaN/+-inf on tensors of
// 16 elements or more; integers uniform in [-1000, 1000] (no wrap needed);
// bool 0 or 1.
void diff_values(kgb::GeneratorArgs& g) {
  HostTensor& t = g.tensor;
  const int64_t n = t.numel();
  if (kgb::is_floating(t.dtype())) {
    for (int64_t i = 0; i < n; ++i) t.set(i, 10.0 * kgb::standard_normal(g.rng));
    if (n >= 16) {
      const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity()};
      for (int64_t j = 0; j < std::max<int64_t>(3, n / 64); ++j)
        t.set(static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n)), specials[j % 3]);
    }
  } else if (t.dtype() == DType::Bool) {
    for (int64_t i = 0; i < n; ++i) t.set_int(i, static_cast<int64_t>(g.rng() & 1));
  } else {
    for (int64_t i = 0; i < n; ++i) t.set_int(i, static_cast<int64_t>(g.rng() % 2001) - 1000);
  }
}

}  // namespace

KGB_REGISTER_GENERATOR("aten/diff/values", diff_values);
KGB_REGISTER_REFERENCE("aten/diff", diff_reference);
