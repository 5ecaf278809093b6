// Reference of aten/index_put_ (and aten/_index_put_impl_, the same
// operation plus an `unsafe` flag): ATen's advanced-index assignment on logical
// indices. indices[k] (None = a full slice) indexes dim k of self; the present
// items broadcast to a shape B; the indexed positions form a result of shape
// (dims before) + B + (dims after) when the present items are adjacent, else
// B + (the other dims); values broadcast to that result. Without accumulate
// every target is written once (the spec promises distinct targets: checked
// here); with accumulate each target gets its old value plus every value sent
// to it, summed exactly (double for floats, int64 for integers, OR for bool)
// and rounded once into the dtype.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::index_put {

[[noreturn]] inline void fail(const std::string& what) { throw std::runtime_error("aten/index_put_: " + what); }

// Right-aligned broadcast of `shapes` (PyTorch's rule).
inline std::vector<int64_t> broadcast(const std::vector<std::vector<int64_t>>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o != 1) fail("index shapes do not broadcast");
      o = s[i];
    }
  return out;
}

// Element offsets (relative to t's data) of every position of `shape` that t
// broadcasts to, in row-major order.
inline std::vector<int64_t> broadcast_offsets(const kgb::HostTensor& t, const std::vector<int64_t>& shape) {
  const size_t lead = shape.size() - static_cast<size_t>(t.rank());
  std::vector<int64_t> strides(shape.size(), 0);
  for (int i = 0; i < t.rank(); ++i) {
    const int64_t size = t.sizes()[i];
    if (size != 1 && size != shape[lead + i]) fail("a tensor does not broadcast to the indexed shape");
    strides[lead + i] = size == 1 ? 0 : t.strides()[i];
  }
  const kgb::HostTensor geometry(t.dtype(), shape, strides, 0);
  std::vector<int64_t> offsets(static_cast<size_t>(geometry.numel()));
  kgb::OffsetWalker w(geometry, 0);
  for (auto& o : offsets) {
    o = w.offset();
    w.next();
  }
  return offsets;
}

// self[indices] = values (or += with accumulate), on the RefArgs of an
// index_put_-shaped entry: self, indices, values, accumulate.
inline void reference(kgb::RefArgs& args) {
  kgb::HostTensor& self = args.tensor("self");
  const std::vector<kgb::HostTensor*>& indices = args.list("indices");
  const kgb::HostTensor& values = args.tensor("values");
  const bool accumulate = args.bool_scalar("accumulate");
  const int rank = self.rank();
  if (values.dtype() != self.dtype()) fail("values has another dtype");
  if (indices.empty() || static_cast<int>(indices.size()) > rank) fail("needs 1 to rank(self) index items");

  // Present items and the shape B they broadcast to.
  std::vector<int> present;
  std::vector<std::vector<int64_t>> item_shapes;
  for (size_t k = 0; k < indices.size(); ++k) {
    if (!indices[k]) continue;
    if (indices[k]->dtype() != kgb::DType::I64) fail("index items must be i64");
    present.push_back(static_cast<int>(k));
    item_shapes.push_back(indices[k]->sizes());
  }
  if (present.empty()) fail("every index item is None");
  const std::vector<int64_t> b_shape = broadcast(item_shapes);
  const bool adjacent = present.back() - present.front() + 1 == static_cast<int>(present.size());

  // The other dims of self (None items and the dims past the list), in order.
  std::vector<int> other;
  for (int d = 0; d < rank; ++d)
    if (d >= static_cast<int>(indices.size()) || !indices[static_cast<size_t>(d)]) other.push_back(d);
  // Result shape: where B sits among the other dims.
  const size_t b_at = adjacent ? static_cast<size_t>(std::count_if(other.begin(), other.end(), [&](int d) { return d < present.front(); })) : 0;
  std::vector<int64_t> result;
  for (size_t i = 0; i < b_at; ++i) result.push_back(self.sizes()[other[i]]);
  result.insert(result.end(), b_shape.begin(), b_shape.end());
  for (size_t i = b_at; i < other.size(); ++i) result.push_back(self.sizes()[other[i]]);
  if (values.rank() > static_cast<int>(result.size())) fail("values has a higher rank than the indexed result");

  // Per position b of B: the target's offset in self from the indexed dims.
  const int64_t nb = [&] { int64_t n = 1; for (auto s : b_shape) n *= s; return n; }();
  std::vector<int64_t> base(static_cast<size_t>(nb), 0);
  for (size_t p = 0; p < present.size(); ++p) {
    const int k = present[p];
    const kgb::HostTensor& item = *indices[static_cast<size_t>(k)];
    const std::vector<int64_t> at = broadcast_offsets(item, b_shape);
    const int64_t size = self.sizes()[k];
    for (int64_t b = 0; b < nb; ++b) {
      int64_t v = item.get_int_at(at[static_cast<size_t>(b)]);
      if (v < -size || v >= size) fail("index " + std::to_string(v) + " out of range for dim " + std::to_string(k) + " of size " + std::to_string(size));
      if (v < 0) v += size;
      base[static_cast<size_t>(b)] += v * self.strides()[k];
    }
  }
  // Per position q of the other dims: its offset in self.
  std::vector<int64_t> q_sizes, q_strides;
  for (int d : other) {
    q_sizes.push_back(self.sizes()[d]);
    q_strides.push_back(self.strides()[d]);
  }
  const std::vector<int64_t> off = broadcast_offsets(kgb::HostTensor(self.dtype(), q_sizes, q_strides, 0), q_sizes);
  // values' offsets split the same way: B part and other part of the result index.
  const std::vector<int64_t> value_at = broadcast_offsets(values, result);
  const int64_t nq = static_cast<int64_t>(off.size());
  const int64_t before = [&] { int64_t n = 1; for (size_t i = 0; i < b_at; ++i) n *= result[i]; return n; }();
  const int64_t after = nq / std::max<int64_t>(before, 1);
  auto value_offset = [&](int64_t b, int64_t q) {  // result index (q_before, b, q_after) in row-major order
    const int64_t qb = after ? q / after : 0, qa = after ? q % after : 0;
    return value_at[static_cast<size_t>((qb * nb + b) * after + qa)];
  };
  if (nb == 0 || nq == 0) return;

  // Positions of B grouped by target (duplicates only under accumulate).
  std::vector<int64_t> order(static_cast<size_t>(nb));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return base[a] < base[b]; });
  std::vector<int64_t> group_start;
  for (int64_t i = 0; i < nb; ++i)
    if (i == 0 || base[order[i]] != base[order[i - 1]]) group_start.push_back(i);
  if (!accumulate && static_cast<int64_t>(group_start.size()) != nb) fail("duplicate targets without accumulate (the spec promises distinct ones)");
  group_start.push_back(nb);

  const kgb::DType dt = self.dtype();
  const int32_t elem = kgb::dtype_size(dt);
  const bool floating = kgb::is_floating(dt);
  const int64_t groups = static_cast<int64_t>(group_start.size()) - 1;
  kgb::parallel_chunks(groups, [&](int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t first = group_start[static_cast<size_t>(g)], last = group_start[static_cast<size_t>(g) + 1];
      const int64_t target = base[order[first]];
      for (int64_t q = 0; q < nq; ++q) {
        const int64_t t = target + off[static_cast<size_t>(q)];
        if (!accumulate) {  // a bit-exact copy
          std::memcpy(self.data() + t * elem, values.data() + value_offset(order[first], q) * elem, static_cast<size_t>(elem));
        } else if (dt == kgb::DType::Bool) {
          int64_t any = self.get_int_at(t);
          for (int64_t i = first; i < last; ++i) any |= values.get_int_at(value_offset(order[i], q));
          self.set_int_at(t, any != 0);
        } else if (floating) {
          double sum = self.get_at(t);
          for (int64_t i = first; i < last; ++i) sum += values.get_at(value_offset(order[i], q));
          self.set_at(t, sum);  // rounds once
        } else {
          uint64_t sum = static_cast<uint64_t>(self.get_int_at(t));
          for (int64_t i = first; i < last; ++i) sum += static_cast<uint64_t>(values.get_int_at(value_offset(order[i], q)));
          self.set_int_at(t, static_cast<int64_t>(sum));
        }
      }
    }
  });
}

}  // namespace kgb::index_put
