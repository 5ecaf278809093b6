// Shared by the BLAS references: GEMM on logical views in fp64 (or
// complex<double>) with the observable BLAS rules (alpha == 0 never reads A
// or B, beta == 0 never reads C, k == 0 gives beta * C) and cuBLAS's op codes
// (CUBLAS_OP_N/T/C = 0/1/2). Complex products use the textbook formula
// (re = ar*br - ai*bi, im = ar*bi + ai*br) as cuBLAS and OpenBLAS kernels do,
// not C99 Annex G's infinity recovery.
#pragma once

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/tensor.h"

namespace kgb::blas_reference {

enum Op : int64_t { kOpN = 0, kOpT = 1, kOpC = 2 };

inline double mul(double a, double b) { return a * b; }
inline std::complex<double> mul(std::complex<double> a, std::complex<double> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
inline double conj_if(double v, bool) { return v; }
inline std::complex<double> conj_if(std::complex<double> v, bool c) { return c ? std::conj(v) : v; }

template <class V> std::vector<V> logical_values(const HostTensor& t);
template <> inline std::vector<double> logical_values<double>(const HostTensor& t) { return to_doubles(t); }
template <> inline std::vector<std::complex<double>> logical_values<std::complex<double>>(const HostTensor& t) {
  return to_complex(t);
}

// Row-major dense copy of op(x) (rows x cols of the result), or of op(x)^T
// when `transpose_result` (so that dot products walk both operands with unit
// stride).
template <class V>
std::vector<V> op_values(const HostTensor& x, int64_t op, bool transpose_result) {
  const std::vector<V> v = logical_values<V>(x);
  const int64_t r = x.size(0), c = x.size(1);
  const bool conj = op == kOpC;
  // op(x)(i, j) = x(i, j) for N, x(j, i) for T and C; flip once more for the transposed result.
  const bool swap = (op != kOpN) != transpose_result;
  const int64_t rows = swap ? c : r, cols = swap ? r : c;
  std::vector<V> out(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      out[static_cast<size_t>(i * cols + j)] = conj_if(swap ? v[static_cast<size_t>(j * c + i)] : v[static_cast<size_t>(i * c + j)], conj);
  return out;
}

// One product of a (batched) GEMM: op(A) as m x k, op(B)^T as n x k, C as m x n, row-major.
template <class V>
struct GemmOperands {
  std::vector<V> a, bt, c;
};

// Checks the shapes of op(A) (m x k), op(B) (k x n) and C (m x n) as the
// views give them and returns {m, n, k}.
inline std::vector<int64_t> gemm_dims(const HostTensor& a, int64_t opa, const HostTensor& b, int64_t opb, const HostTensor& c,
                                      const std::string& task) {
  if (opa < kOpN || opa > kOpC || opb < kOpN || opb > kOpC) throw std::runtime_error(task + ": op must be CUBLAS_OP_N, _T or _C");
  if (a.rank() != 2 || b.rank() != 2 || c.rank() != 2) throw std::runtime_error(task + ": matrices must be 2-D");
  const int64_t m = c.size(0), n = c.size(1), k = opa == kOpN ? a.size(1) : a.size(0);
  if ((opa == kOpN ? a.size(0) : a.size(1)) != m || (opb == kOpN ? b.size(0) : b.size(1)) != k ||
      (opb == kOpN ? b.size(1) : b.size(0)) != n)
    throw std::runtime_error(task + ": shapes of A, B and C do not agree");
  return {m, n, k};
}

template <class V>
GemmOperands<V> gemm_operands(const HostTensor& a, int64_t opa, const HostTensor& b, int64_t opb, const HostTensor& c, V alpha,
                              V beta) {
  GemmOperands<V> g;
  if (alpha != V(0)) {  // BLAS: alpha == 0 reads neither A nor B
    g.a = op_values<V>(a, opa, false);
    g.bt = op_values<V>(b, opb, true);
  }
  if (beta != V(0)) g.c = logical_values<V>(c);  // beta == 0 never reads C
  return g;
}

// result[b] = alpha * op(A[b]) op(B[b]) + beta * C[b] for every product,
// in parallel over all output elements of the batch, summing in a fixed order.
template <class V>
std::vector<std::vector<V>> gemm_batch(int64_t m, int64_t n, int64_t k, V alpha, V beta,
                                       const std::vector<GemmOperands<V>>& ops) {
  std::vector<std::vector<V>> out(ops.size(), std::vector<V>(static_cast<size_t>(m * n)));
  const int64_t per = m * n;
  parallel_chunks(static_cast<int64_t>(ops.size()) * per, [&](int64_t first, int64_t last) {
    for (int64_t e = first; e < last; ++e) {
      const size_t b = static_cast<size_t>(e / per);
      const int64_t ij = e % per, i = ij / n, j = ij % n;
      const GemmOperands<V>& g = ops[b];
      V sum(0);
      if (alpha != V(0)) {
        const V* ar = g.a.data() + i * k;
        const V* br = g.bt.data() + j * k;
        for (int64_t l = 0; l < k; ++l) sum += mul(ar[l], br[l]);
      }
      V r = mul(alpha, sum);
      if (beta != V(0)) r += mul(beta, g.c[static_cast<size_t>(ij)]);
      out[b][static_cast<size_t>(ij)] = r;
    }
  });
  return out;
}

}  // namespace kgb::blas_reference
