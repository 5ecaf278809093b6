// Shared by the references of the batched GEMM tasks (blas/*gemm_batched*,
// blas/*gemm_strided_batched*): the batch is gathered into the per-product
// operands of blas_reference.h and computed by its gemm_batch, so every GEMM
// task keeps one set of BLAS rules (beta == 0 never reads C, alpha == 0 never
// reads A or B, k == 0 gives beta * C) and one summation.
//
// Strided batches arrive as rank-3 views [rows, cols, batch] with strides
// [1, ld, stride]: element (i, j) of item b at data[i + j * ld + b * stride],
// cuBLAS's own formula (stride 0 repeats one matrix for every item).
// Pointer-array batches arrive as tensor lists of 2-D [rows, cols] views.
// The caller rounds once into the output dtype (from_doubles / from_complex).
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "blas_reference.h"
#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::blas_reference {

inline void from_values(HostTensor& t, const std::vector<double>& v) { from_doubles(t, v); }
inline void from_values(HostTensor& t, const std::vector<std::complex<double>>& v) { from_complex(t, v); }

// op(x) of item b of a rank-3 [rows, cols, batch] tensor whose logical values
// are `all` (row-major over [rows, cols, batch]), as op_values lays it out.
template <class V>
std::vector<V> item_op_values(const std::vector<V>& all, int64_t r, int64_t c, int64_t batch, int64_t b, int64_t op,
                              bool transpose_result) {
  const bool conj = op == kOpC;
  const bool swap = (op != kOpN) != transpose_result;
  const int64_t rows = swap ? c : r, cols = swap ? r : c;
  std::vector<V> out(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t x = swap ? j : i, y = swap ? i : j;  // index into the stored matrix
      out[static_cast<size_t>(i * cols + j)] = conj_if(all[static_cast<size_t>((x * c + y) * batch + b)], conj);
    }
  return out;
}

// C[:, :, b] = alpha * op(A[:, :, b]) op(B[:, :, b]) + beta * C[:, :, b] on
// rank-3 views (cublas?gemmStridedBatched).
template <class V>
void strided_batched_gemm(RefArgs& args, V alpha, V beta, const std::string& task) {
  const int64_t opa = args.int_scalar("transa"), opb = args.int_scalar("transb");
  const HostTensor& a = args.tensor("A");
  const HostTensor& b = args.tensor("B");
  HostTensor& c = args.tensor("C");
  if (opa < kOpN || opa > kOpC || opb < kOpN || opb > kOpC) throw std::runtime_error(task + ": op must be CUBLAS_OP_N, _T or _C");
  if (a.rank() != 3 || b.rank() != 3 || c.rank() != 3) throw std::runtime_error(task + ": A, B and C must be rank-3 views");
  const int64_t batch = c.size(2), m = c.size(0), n = c.size(1), k = opa == kOpN ? a.size(1) : a.size(0);
  if (a.size(2) != batch || b.size(2) != batch) throw std::runtime_error(task + ": batch sizes of A, B and C differ");
  if ((opa == kOpN ? a.size(0) : a.size(1)) != m || (opb == kOpN ? b.size(0) : b.size(1)) != k ||
      (opb == kOpN ? b.size(1) : b.size(0)) != n)
    throw std::runtime_error(task + ": shapes of A, B and C do not agree");
  if (batch == 0 || m == 0 || n == 0) return;
  std::vector<V> av, bv, cv;
  if (alpha != V(0)) {  // alpha == 0 reads neither A nor B
    av = logical_values<V>(a);
    bv = logical_values<V>(b);
  }
  if (beta != V(0)) cv = logical_values<V>(c);  // beta == 0 never reads C
  std::vector<GemmOperands<V>> ops(static_cast<size_t>(batch));
  for (int64_t i = 0; i < batch; ++i) {
    GemmOperands<V>& g = ops[static_cast<size_t>(i)];
    if (alpha != V(0)) {
      g.a = item_op_values(av, a.size(0), a.size(1), batch, i, opa, false);
      g.bt = item_op_values(bv, b.size(0), b.size(1), batch, i, opb, true);
    }
    if (beta != V(0)) g.c = item_op_values(cv, m, n, batch, i, kOpN, false);
  }
  const auto results = gemm_batch(m, n, k, alpha, beta, ops);
  std::vector<V> out(static_cast<size_t>(m * n * batch));
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t e = 0; e < m * n; ++e) out[static_cast<size_t>(e * batch + i)] = results[static_cast<size_t>(i)][static_cast<size_t>(e)];
  from_values(c, out);
}

// C[b] = alpha * op(A[b]) op(B[b]) + beta * C[b] over the items of three
// tensor lists (cublas?gemmBatched); repeated A or B items are read again.
template <class V>
void pointer_batched_gemm(RefArgs& args, V alpha, V beta, const std::string& task) {
  const int64_t opa = args.int_scalar("transa"), opb = args.int_scalar("transb");
  const auto& a = args.list("Aarray");
  const auto& b = args.list("Barray");
  const auto& c = args.list("Carray");
  if (a.size() != c.size() || b.size() != c.size()) throw std::runtime_error(task + ": the three lists differ in length");
  if (c.empty()) return;
  std::vector<int64_t> dims;
  std::vector<GemmOperands<V>> ops;
  for (size_t i = 0; i < c.size(); ++i) {
    if (!a[i] || !b[i] || !c[i]) throw std::runtime_error(task + ": lists hold no None items");
    const auto d = gemm_dims(*a[i], opa, *b[i], opb, *c[i], task);
    if (!dims.empty() && d != dims) throw std::runtime_error(task + ": items of one batch differ in shape");
    dims = d;
    ops.push_back(gemm_operands(*a[i], opa, *b[i], opb, *c[i], alpha, beta));
  }
  const auto results = gemm_batch(dims[0], dims[1], dims[2], alpha, beta, ops);
  for (size_t i = 0; i < c.size(); ++i) from_values(*c[i], results[i]);
}

// C's generator for complex tasks: complex normal values with ~3% of the
// elements NaN in both parts (the `special` modifier covers real dtypes
// only). A NaN in both parts stays NaN under any way of multiplying by beta,
// and catches a kernel that reads C when beta == 0; an infinity would make
// the expected result depend on how beta = 1 + 0i is applied.
inline void complex_with_nans(GeneratorArgs& g) {
  const int64_t n = g.tensor.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double re = standard_normal(g.rng);
    g.tensor.set_complex(i, {re, standard_normal(g.rng)});
  }
  if (n == 0) return;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t specials = std::max<int64_t>(1, n * 3 / 100);
  for (int64_t s = 0; s < specials; ++s) g.tensor.set_complex(static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n)), {nan, nan});
}

}  // namespace kgb::blas_reference
