// Shared fp64 GEMM for the references of aten/bmm, aten/linear and
// aten/matmul: a batch of row-major logical products C[b] = A[b] @ B[b],
// with optional per-column bias, summed in double and rounded once into the
// output by the caller (kgb::from_doubles).
#pragma once

#include <cstdint>
#include <vector>

#include "kgb/tensor.h"

namespace kgb::matmul_reference {

// One product of the batch: where its operands start in the logical
// (row-major) value vectors of A and B, and where its result goes in C.
struct Product {
  int64_t a = 0, b = 0, c = 0;
};

// c[p.c + i*n + j] = sum over l of a[p.a + i*k + l] * b[p.b + l*n + j]
// (+ bias[j] when bias is non-empty), for every product p. B is transposed
// once per distinct operand so that every output is a dot product of two
// contiguous rows.
inline void gemm_batch(int64_t m, int64_t n, int64_t k, const std::vector<double>& a, const std::vector<double>& b,
                       const std::vector<Product>& products, const std::vector<double>& bias, std::vector<double>& c) {
  if (m == 0 || n == 0 || products.empty()) return;
  // Transposed copies of the B matrices, keyed by their start (broadcast
  // batches share one).
  std::vector<int64_t> starts;
  for (const Product& p : products) {
    bool seen = false;
    for (int64_t s : starts) seen = seen || s == p.b;
    if (!seen) starts.push_back(p.b);
  }
  std::vector<double> bt(starts.size() * static_cast<size_t>(n * k));
  for (size_t s = 0; s < starts.size(); ++s)
    for (int64_t l = 0; l < k; ++l)
      for (int64_t j = 0; j < n; ++j)
        bt[s * static_cast<size_t>(n * k) + static_cast<size_t>(j * k + l)] = b[static_cast<size_t>(starts[s] + l * n + j)];
  std::vector<size_t> bt_of(products.size());
  for (size_t q = 0; q < products.size(); ++q)
    for (size_t s = 0; s < starts.size(); ++s)
      if (starts[s] == products[q].b) bt_of[q] = s * static_cast<size_t>(n * k);

  // One unit per output element: the chunks are fixed-size, so products
  // with few rows still spread over the cores.
  const int64_t elements = static_cast<int64_t>(products.size()) * m * n;
  parallel_chunks(elements, [&](int64_t first, int64_t last) {
    for (int64_t e = first; e < last; ++e) {
      const int64_t r = e / n, j = e % n;
      const size_t q = static_cast<size_t>(r / m);
      const int64_t i = r % m;
      const double* arow = a.data() + products[q].a + i * k;
      const double* brow = bt.data() + bt_of[q] + static_cast<size_t>(j * k);
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int64_t l = 0;
      for (; l + 4 <= k; l += 4) {
        s0 += arow[l] * brow[l];
        s1 += arow[l + 1] * brow[l + 1];
        s2 += arow[l + 2] * brow[l + 2];
        s3 += arow[l + 3] * brow[l + 3];
      }
      for (; l < k; ++l) s0 += arow[l] * brow[l];
      c[static_cast<size_t>(products[q].c + i * n + j)] = (s0 + s1) + (s2 + s3) + (bias.empty() ? 0.0 : bias[static_cast<size_t>(j)]);
    }
  });
}

}  // namespace kgb::matmul_reference
