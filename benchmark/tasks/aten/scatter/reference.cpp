// Reference for aten/scatter (overloads src, value, reduce, value_reduce):
// out = self (bit for bit), then for every logical position p of index in
// row-major order, the element of out at p with coordinate dim := index[p]
// is set to (or combined with, by + or *) src[p] or the scalar value.
// Reductions run in fp64 (floats) or wrapping int64 (integers) one update at
// a time, rounding into the dtype after each: the task's test values make
// every step exact, so this equals any order of updates. Also the index
// generators: distinct values along dim per line (plain overloads, so the
// result is defined) and uniform values (reductions, repeats wanted).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("aten/scatter: " + what); }

enum class Reduce { None, Add, Multiply };

int normalise_dim(int64_t dim, int rank) {
  const int r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) fail("dim " + std::to_string(dim) + " out of range");
  return static_cast<int>(dim < 0 ? dim + r : dim);
}

// What is sent: src's element at a position of index, or the scalar value.
struct Source {
  const kgb::HostTensor* src = nullptr;
  kgb_scalar value{};
};

void scatter(kgb::RefArgs& args, const Source& source, Reduce reduce) {
  const kgb::HostTensor& self = args.tensor("self");
  const kgb::HostTensor& index = args.tensor("index");
  kgb::HostTensor& out = args.tensor("out");
  const int rank = self.rank();
  const int dim = normalise_dim(args.int_scalar("dim"), rank);
  if (index.dtype() != kgb::DType::I64) fail("index must be i64");
  if (out.dtype() != self.dtype() || out.sizes() != self.sizes()) fail("out must have self's dtype and shape");
  if (index.rank() != rank || (source.src && source.src->rank() != rank)) fail("self, index and src need one rank");
  for (int d = 0; d < rank; ++d) {
    if (d != dim && index.sizes()[d] > self.sizes()[d]) fail("index is larger than self outside dim");
    if (source.src && index.sizes()[d] > source.src->sizes()[d]) fail("index is larger than src");
  }
  const int64_t elem = kgb::dtype_size(self.dtype());
  // out = self, bit for bit.
  {
    kgb::OffsetWalker from(self, 0), to(out, 0);
    for (int64_t i = 0; i < self.numel(); ++i, from.next(), to.next())
      std::memcpy(out.data() + to.offset() * elem, self.data() + from.offset() * elem, static_cast<size_t>(elem));
  }
  const int64_t n = index.numel();
  if (n == 0 || self.numel() == 0) return;
  const int64_t len = rank == 0 ? 1 : self.sizes()[dim];
  const int64_t dim_stride = rank == 0 ? 0 : out.strides()[dim];
  const bool floating = kgb::is_floating(self.dtype());
  const double value_f = source.value.dtype == KGB_F64 ? source.value.v.f : static_cast<double>(source.value.v.i);
  const int64_t value_i = source.value.dtype == KGB_F64 ? static_cast<int64_t>(source.value.v.f) : source.value.v.i;
  std::vector<char> hit(reduce == Reduce::None ? static_cast<size_t>(out.storage_elements()) : 0, 0);

  std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
  for (int64_t linear = 0; linear < n; ++linear) {
    const int64_t v = index.get_int_at(index.offset_of(pos));
    if (v < 0 || v >= len) fail("index value " + std::to_string(v) + " out of range [0, " + std::to_string(len) + ")");
    int64_t to = v * dim_stride;
    for (int d = 0; d < rank; ++d)
      if (d != dim) to += pos[static_cast<size_t>(d)] * out.strides()[d];
    const int64_t from = source.src ? source.src->offset_of(pos) : 0;
    if (reduce == Reduce::None) {
      char& seen = hit[static_cast<size_t>(out.offset() + to)];
      if (seen) fail("two values sent to one element without a reduction (the spec promises distinct indices)");
      seen = 1;
      if (source.src) std::memcpy(out.data() + to * elem, source.src->data() + from * elem, static_cast<size_t>(elem));
      else if (floating) out.set_at(to, value_f);  // rounds once into the dtype
      else out.set_int_at(to, value_i);
    } else if (floating) {
      const double x = source.src ? source.src->get_at(from) : value_f, y = out.get_at(to);
      out.set_at(to, reduce == Reduce::Add ? y + x : y * x);
    } else {
      const uint64_t x = static_cast<uint64_t>(source.src ? source.src->get_int_at(from) : value_i);
      const uint64_t y = static_cast<uint64_t>(out.get_int_at(to));
      out.set_int_at(to, static_cast<int64_t>(reduce == Reduce::Add ? y + x : y * x));
    }
    for (int d = rank - 1; d >= 0; --d) {  // row-major odometer
      if (++pos[static_cast<size_t>(d)] < index.sizes()[d]) break;
      pos[static_cast<size_t>(d)] = 0;
    }
  }
}

Reduce reduce_of(const kgb::RefArgs& args) { return args.int_scalar("reduce") == 0 ? Reduce::Add : Reduce::Multiply; }

void scatter_src(kgb::RefArgs& args) { scatter(args, {&args.tensor("src"), {}}, Reduce::None); }
void scatter_value(kgb::RefArgs& args) { scatter(args, {nullptr, args.aten_scalar("value")}, Reduce::None); }
void scatter_reduce(kgb::RefArgs& args) { scatter(args, {&args.tensor("src"), {}}, reduce_of(args)); }
void scatter_value_reduce(kgb::RefArgs& args) { scatter(args, {nullptr, args.aten_scalar("value")}, reduce_of(args)); }

// The length of dim in self (1 for a 0-dim self).
int64_t dim_length(const kgb::GeneratorArgs& g, int* dim) {
  const auto self = g.filled.find("self");
  const auto d = g.scalars.find("dim");
  if (self == g.filled.end() || d == g.scalars.end()) fail("the index generators need self and dim");
  *dim = normalise_dim(d->second.i, self->second->rank());
  return self->second->rank() == 0 ? 1 : self->second->sizes()[*dim];
}

// Uniform in [0, size(self, dim)), repeats allowed.
void uniform_index(kgb::GeneratorArgs& g) {
  int dim = 0;
  const int64_t len = dim_length(g, &dim);
  const int64_t n = g.tensor.numel();
  if (n > 0 && len <= 0) fail("no valid index for an empty dim");
  kgb::OffsetWalker w(g.tensor, 0);
  for (int64_t i = 0; i < n; ++i, w.next()) g.tensor.set_int_at(w.offset(), static_cast<int64_t>(g.rng() % static_cast<uint64_t>(len)));
}

// Distinct along dim within every line (the positions that differ only in
// their dim coordinate): a partial Fisher-Yates shuffle of [0, len) per line.
void distinct_index(kgb::GeneratorArgs& g) {
  int dim = 0;
  const int64_t len = dim_length(g, &dim);
  kgb::HostTensor& t = g.tensor;
  if (t.numel() == 0) return;
  const int64_t k = t.rank() == 0 ? 1 : t.sizes()[dim];
  if (k > len) fail("more positions along dim than distinct values");
  // The lines: every coordinate but dim.
  std::vector<int64_t> line_sizes = t.sizes(), line_strides = t.strides();
  int64_t step = 0;
  if (t.rank() > 0) {
    step = t.strides()[dim];
    line_sizes.erase(line_sizes.begin() + dim);
    line_strides.erase(line_strides.begin() + dim);
  }
  const kgb::HostTensor lines(t.dtype(), line_sizes, line_strides, 0);
  std::vector<int64_t> pool(static_cast<size_t>(len));
  std::iota(pool.begin(), pool.end(), 0);
  kgb::OffsetWalker w(lines, 0);
  for (int64_t l = 0; l < lines.numel(); ++l, w.next()) {
    for (int64_t j = 0; j < k; ++j) {
      const int64_t pick = j + static_cast<int64_t>(g.rng() % static_cast<uint64_t>(len - j));
      std::swap(pool[static_cast<size_t>(j)], pool[static_cast<size_t>(pick)]);
      t.set_int_at(w.offset() + j * step, pool[static_cast<size_t>(j)]);
    }
  }
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/scatter", scatter_src);
KGB_REGISTER_REFERENCE("aten/scatter.value", scatter_value);
KGB_REGISTER_REFERENCE("aten/scatter.reduce", scatter_reduce);
KGB_REGISTER_REFERENCE("aten/scatter.value_reduce", scatter_value_reduce);
KGB_REGISTER_GENERATOR("aten/scatter/index", uniform_index);
KGB_REGISTER_GENERATOR("aten/scatter/distinct_index", distinct_index);
