// Reference for aten/index (index.Tensor): ATen's advanced indexing on logical
// indices, copied bit for bit. Every list item is None (a full slice of one
// dim of self), an integer index tensor (one dim; negative values wrap) or a
// bool mask (as many dims as it has, replaced by its nonzero() coordinates in
// row-major order). The advanced indices broadcast to a shape B; B replaces
// the indexed dims in place when they are adjacent, else goes first. Also the
// index generator: integers uniform in [-size, size) of the dim they index,
// masks with exactly `M` trues (the output shape depends on the true count).
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("aten/index: " + what); }

// One advanced dim of self: its coordinate at every position of `shape`
// (row-major), where `shape` broadcasts to B.
struct Advanced {
  int dim = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> coord;
};

std::vector<int64_t> logical_values(const kgb::HostTensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  kgb::OffsetWalker w(t, 0);
  for (auto& x : v) {
    x = t.get_int_at(w.offset());
    w.next();
  }
  return v;
}

void index_reference(kgb::RefArgs& args) {
  const kgb::HostTensor& self = args.tensor("self");
  const std::vector<kgb::HostTensor*>& indices = args.list("indices");
  kgb::HostTensor& out = args.tensor("out");
  const int rank = self.rank();
  if (out.dtype() != self.dtype()) fail("out has another dtype");

  // Expand the list into slice dims and advanced dims of self.
  std::vector<Advanced> adv;
  std::vector<bool> sliced(static_cast<size_t>(rank), true);
  int d = 0;
  for (const kgb::HostTensor* item : indices) {
    if (!item) {
      ++d;
      continue;
    }
    if (item->dtype() == kgb::DType::Bool) {
      const int r = item->rank();
      if (d + r > rank) fail("a mask covers more dims than self has");
      for (int j = 0; j < r; ++j)
        if (item->sizes()[j] != self.sizes()[d + j]) fail("a mask's shape differs from the dims of self it covers");
      const std::vector<int64_t> flags = logical_values(*item);
      std::vector<Advanced> coords(static_cast<size_t>(r));
      for (int j = 0; j < r; ++j) coords[static_cast<size_t>(j)].dim = d + j;
      for (int64_t i = 0; i < static_cast<int64_t>(flags.size()); ++i) {
        if (!flags[static_cast<size_t>(i)]) continue;
        int64_t rest = i;
        for (int j = r - 1; j >= 0; --j) {
          coords[static_cast<size_t>(j)].coord.push_back(rest % item->sizes()[j]);
          rest /= item->sizes()[j];
        }
      }
      for (auto& c : coords) {
        c.shape = {static_cast<int64_t>(c.coord.size())};
        sliced[static_cast<size_t>(c.dim)] = false;
        adv.push_back(std::move(c));
      }
      d += r;
    } else {
      if (item->dtype() != kgb::DType::I64 && item->dtype() != kgb::DType::I32) fail("index items must be i64, i32 or bool");
      if (d >= rank) fail("too many indices for self");
      Advanced a{d, item->sizes(), logical_values(*item)};
      const int64_t size = self.sizes()[d];
      for (auto& v : a.coord) {
        if (v < -size || v >= size) fail("index " + std::to_string(v) + " out of range for dim " + std::to_string(d));
        if (v < 0) v += size;
      }
      sliced[static_cast<size_t>(d)] = false;
      adv.push_back(std::move(a));
      ++d;
    }
  }
  if (adv.empty()) fail("no advanced index (every item is None)");

  // B: right-aligned broadcast of the advanced shapes.
  size_t rb = 0;
  for (const auto& a : adv) rb = std::max(rb, a.shape.size());
  std::vector<int64_t> b_shape(rb, 1);
  for (const auto& a : adv)
    for (size_t i = 0; i < a.shape.size(); ++i) {
      int64_t& o = b_shape[rb - a.shape.size() + i];
      if (a.shape[i] == o || a.shape[i] == 1) continue;
      if (o != 1) fail("index shapes do not broadcast");
      o = a.shape[i];
    }
  int64_t nb = 1;
  for (int64_t s : b_shape) nb *= s;

  // Per position b of B: the offset in self of its advanced coordinates.
  std::vector<int64_t> base(static_cast<size_t>(nb), 0);
  for (const auto& a : adv) {
    std::vector<int64_t> stride(rb, 0);  // a's row-major strides along B (0 where broadcast)
    int64_t s = 1;
    for (size_t i = a.shape.size(); i-- > 0;) {
      if (a.shape[i] != 1) stride[rb - a.shape.size() + i] = s;
      s *= a.shape[i];
    }
    for (int64_t b = 0; b < nb; ++b) {
      int64_t rest = b, at = 0;
      for (size_t i = rb; i-- > 0;) {
        at += (rest % b_shape[i]) * stride[i];
        rest /= b_shape[i];
      }
      base[static_cast<size_t>(b)] += a.coord[static_cast<size_t>(at)] * self.strides()[a.dim];
    }
  }

  // The slice dims, and where B sits among them in the result.
  int first = rank, last = -1;
  for (const auto& a : adv) {
    first = std::min(first, a.dim);
    last = std::max(last, a.dim);
  }
  const bool adjacent = last - first + 1 == static_cast<int>(adv.size());
  std::vector<int> other;
  size_t b_at = 0;
  for (int k = 0; k < rank; ++k)
    if (sliced[static_cast<size_t>(k)]) {
      other.push_back(k);
      if (adjacent && k < first) ++b_at;
    }
  std::vector<int64_t> result;
  for (size_t i = 0; i < b_at; ++i) result.push_back(self.sizes()[other[i]]);
  result.insert(result.end(), b_shape.begin(), b_shape.end());
  for (size_t i = b_at; i < other.size(); ++i) result.push_back(self.sizes()[other[i]]);
  if (out.sizes() != result) fail("out's shape differs from the indexed result's");

  const int64_t n = out.numel();
  if (n == 0) return;
  const size_t elem = static_cast<size_t>(kgb::dtype_size(self.dtype()));
  kgb::parallel_chunks(n, [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> pos = out.unravel(lo);
    for (int64_t i = lo; i < hi; ++i) {
      // pos = (slice coords before B, B coords, slice coords after B).
      int64_t b = 0, from = 0;
      for (size_t r = 0; r < rb; ++r) b = b * b_shape[r] + pos[b_at + r];
      for (size_t k = 0; k < other.size(); ++k) from += pos[k < b_at ? k : k + rb] * self.strides()[other[k]];
      from += base[static_cast<size_t>(b)];
      std::memcpy(out.data() + out.offset_of(pos) * static_cast<int64_t>(elem), self.data() + from * static_cast<int64_t>(elem), elem);
      for (int r = out.rank() - 1; r >= 0; --r) {  // row-major odometer
        if (++pos[static_cast<size_t>(r)] < out.sizes()[r]) break;
        pos[static_cast<size_t>(r)] = 0;
      }
    }
  });
}

// Integer items: uniform in [-size, size) of the dim they index (all items of
// a list share one dtype, so item k indexes dim k). Masks: exactly M trues,
// chosen by selection sampling in logical order.
void index_indices(kgb::GeneratorArgs& g) {
  const int64_t n = g.tensor.numel();
  kgb::OffsetWalker w(g.tensor, 0);
  if (g.tensor.dtype() == kgb::DType::Bool) {
    const auto m = g.dims.find("M");
    if (m == g.dims.end() || m->second < 0 || m->second > n) fail("a mask needs a true count M in [0, numel]");
    int64_t need = m->second;
    for (int64_t i = 0; i < n; ++i, w.next()) {
      const bool take = need > 0 && static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n - i)) < need;
      if (take) --need;
      g.tensor.set_int_at(w.offset(), take ? 1 : 0);
    }
    return;
  }
  const auto self = g.filled.find("self");
  if (self == g.filled.end()) fail("the index generator needs self");
  const kgb::HostTensor& s = *self->second;
  if (g.item < 0 || g.item >= s.rank()) fail("an integer index item past the rank of self");
  const int64_t size = s.size(static_cast<int>(g.item));
  if (n > 0 && size <= 0) fail("no valid index into an empty dim");
  for (int64_t i = 0; i < n; ++i, w.next())
    g.tensor.set_int_at(w.offset(), static_cast<int64_t>(g.rng() % static_cast<uint64_t>(2 * size)) - size);
}

}  // namespace

KGB_REGISTER_REFERENCE("aten/index", index_reference);
KGB_REGISTER_GENERATOR("aten/index/indices", index_indices);
