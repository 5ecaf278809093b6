// Layout rules of ATen shared by the references of the alias-or-copy and
// copy tasks (contiguous, clone, resolve_conj, resolve_neg): contiguity, the
// non-overlapping-and-dense test behind memory_format=preserve, and an
// element-by-element bit copy between two strided views.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "kgb/tensor.h"

namespace kgb::layout {

// ATen's compute_contiguous: no elements, or every dim of size > 1 has the
// row-major stride of the dims inside it (size-1 dims are skipped).
inline bool is_contiguous(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  for (int64_t s : sizes)
    if (s == 0) return true;
  int64_t expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// ATen's compute_non_overlapping_and_dense: the dims, sorted by stride (size-1
// dims skipped), tile the elements with no gap and no overlap.
inline bool is_non_overlapping_and_dense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  const size_t rank = sizes.size();
  if (rank == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;  // size-1 dims last, as ATen's comparator
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (size_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// dst[i] = src[i] bit for bit for every logical index (same sizes and dtype).
inline void copy_bits(const HostTensor& src, HostTensor& dst) {
  const int64_t n = src.numel();
  if (n == 0) return;
  const size_t elem = static_cast<size_t>(dtype_size(src.dtype()));
  OffsetWalker from(src, 0), to(dst, 0);
  const std::byte* s = src.data();
  std::byte* d = dst.data();
  for (int64_t i = 0; i < n; ++i, from.next(), to.next())
    std::memcpy(d + to.offset() * static_cast<int64_t>(elem), s + from.offset() * static_cast<int64_t>(elem), elem);
}

}  // namespace kgb::layout
