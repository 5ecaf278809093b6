// Shared by the level-3 BLAS references (sgeam, sdgmm, ssyrk, strsm, ...):
// cuBLAS's fill-mode, side and diagonal codes, column-major matrices as
// logical [row, col] values, and the generator of well-conditioned triangular
// matrices whose unreferenced part is poisoned.
//
// Poison: the triangle a routine must not read (and the diagonal under
// CUBLAS_DIAG_UNIT) holds NaN, so a kernel that reads it produces NaN in its
// result and fails the check; an input's poison is also hashed unchanged.
#pragma once

#include <algorithm>
#include <cmath>
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

namespace kgb::level3_reference {

enum Fill : int64_t { kLower = 0, kUpper = 1 };       // CUBLAS_FILL_MODE_LOWER / _UPPER
enum Side : int64_t { kLeft = 0, kRight = 1 };        // CUBLAS_SIDE_LEFT / _RIGHT
enum Diag : int64_t { kNonUnit = 0, kUnit = 1 };      // CUBLAS_DIAG_NON_UNIT / _UNIT

// (i, j) lies in the `uplo` triangle (diagonal included).
inline bool in_triangle(int64_t uplo, int64_t i, int64_t j) { return uplo == kUpper ? i <= j : i >= j; }

// A column-major matrix as its logical values, row-major: v[i * cols + j] is (i, j).
template <class V>
struct Dense {
  int64_t rows = 0, cols = 0;
  std::vector<V> v;
  V& at(int64_t i, int64_t j) { return v[static_cast<size_t>(i * cols + j)]; }
  const V& at(int64_t i, int64_t j) const { return v[static_cast<size_t>(i * cols + j)]; }
};

template <class V>
Dense<V> dense(const HostTensor& t) {
  if (t.rank() != 2) throw std::runtime_error("level-3 BLAS: matrices must be 2-D");
  return {t.size(0), t.size(1), blas_reference::logical_values<V>(t)};
}

inline void store(HostTensor& t, const Dense<double>& d) { from_doubles(t, d.v); }
inline void store(HostTensor& t, const Dense<std::complex<double>>& d) { from_complex(t, d.v); }

// Enum scalar of a generator's case (the number the spec maps the name to).
inline int64_t case_enum(const GeneratorArgs& g, const std::string& name) {
  const auto it = g.scalars.find(name);
  if (it == g.scalars.end()) throw std::runtime_error("level-3 generator: case has no scalar '" + name + "'");
  return it->second.i;
}

// Fills a square matrix for a triangular solve: the `uplo` triangle is
// diagonally dominant (|diagonal| in [1, 2] with a random sign, off-diagonal
// entries uniform with |a| < 1 / n, so every row of the triangle sums to less
// than its diagonal) and its condition number stays below ~4 whatever n;
// with unit diagonal the same bound holds for the implied ones. The other
// triangle is NaN, and so is the stored diagonal under CUBLAS_DIAG_UNIT.
inline void fill_triangular(GeneratorArgs& g, int64_t uplo, int64_t diag) {
  HostTensor& t = g.tensor;
  const int64_t n = t.size(0);
  if (t.rank() != 2 || t.size(1) != n) throw std::runtime_error("level-3 generator: the triangular matrix must be square");
  const bool is_complex = t.dtype() == DType::C64 || t.dtype() == DType::C128;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double off_scale = 1.0 / static_cast<double>(n > 1 ? n : 1);
  auto uniform_pm1 = [&] { return 2.0 * uniform_open01(g.rng) - 1.0; };
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      std::complex<double> v;
      if (!in_triangle(uplo, i, j) || (i == j && diag == kUnit)) {
        v = {nan, is_complex ? nan : 0.0};
      } else if (i == j) {
        const double mag = 1.0 + uniform_open01(g.rng);
        const double sign = uniform_open01(g.rng) < 0.5 ? -1.0 : 1.0;
        // Complex diagonals get a phase: |d| stays in [1, 2].
        const double phase = is_complex ? uniform_pm1() * 3.14159265358979 : 0.0;
        v = std::polar(mag, phase) * sign;
      } else {
        v = {uniform_pm1() * off_scale * (is_complex ? 0.7 : 1.0), is_complex ? uniform_pm1() * off_scale * 0.7 : 0.0};
      }
      const int64_t linear = i * n + j;
      if (is_complex)
        t.set_complex(linear, v);
      else
        t.set(linear, v.real());
    }
}

// Fills a symmetric matrix's `uplo` triangle with standard normal values
// (complex: both parts) and poisons the other triangle with NaN.
inline void fill_symmetric_triangle(GeneratorArgs& g, int64_t uplo) {
  HostTensor& t = g.tensor;
  const int64_t n = t.size(0);
  if (t.rank() != 2 || t.size(1) != n) throw std::runtime_error("level-3 generator: the symmetric matrix must be square");
  const bool is_complex = t.dtype() == DType::C64 || t.dtype() == DType::C128;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const bool keep = in_triangle(uplo, i, j);
      const double re = keep ? standard_normal(g.rng) : nan;
      const double im = is_complex ? (keep ? standard_normal(g.rng) : nan) : 0.0;
      if (is_complex)
        t.set_complex(i * n + j, {re, im});
      else
        t.set(i * n + j, re);
    }
}

}  // namespace kgb::level3_reference

namespace kgb::level3_reference {

// Symmetric rank-k update of the `uplo` triangle of c (n x n), in place:
// c(i, j) = alpha * sum_l opa(i, l) * opa(j, l) + beta * c(i, j), where opa
// is n x k row-major (op(A) as the routine uses it, already conjugated where
// it should be: syrk conjugates nothing). alpha == 0 never reads opa, beta ==
// 0 never reads c; the other triangle is left as it is. Parallel over the
// elements of c, each summed in a fixed order.
template <class V>
void syrk_triangle(int64_t uplo, V alpha, const std::vector<V>& opa, int64_t k, V beta, Dense<V>& c) {
  const int64_t n = c.rows;
  parallel_chunks(n * n, [&](int64_t first, int64_t last) {
    for (int64_t e = first; e < last; ++e) {
      const int64_t i = e / n, j = e % n;
      if (!in_triangle(uplo, i, j)) continue;
      V sum(0);
      if (alpha != V(0)) {
        const V* ai = opa.data() + i * k;
        const V* aj = opa.data() + j * k;
        for (int64_t l = 0; l < k; ++l) sum += blas_reference::mul(ai[l], aj[l]);
      }
      V r = blas_reference::mul(alpha, sum);
      if (beta != V(0)) r += blas_reference::mul(beta, c.at(i, j));
      c.at(i, j) = r;
    }
  });
}

}  // namespace kgb::level3_reference

namespace kgb::level3_reference {

// Triangular solve with many right-hand sides, in place on b (m x n):
// side LEFT solves op(A) X = alpha B (A m x m), RIGHT solves X op(A) = alpha B
// (A n x n); op N/T/C (C conjugates complex values). Only the `uplo`
// triangle of a is read, and its diagonal only under kNonUnit; alpha == 0
// gives zeros without reading a. Each right-hand side (a column of B for
// LEFT, a row for RIGHT) is an independent substitution, run in parallel.
template <class V>
void trsm(int64_t side, int64_t uplo, int64_t trans, int64_t diag, V alpha, const Dense<V>& a, Dense<V>& b) {
  const int64_t m = b.rows, n = b.cols;
  if (alpha == V(0)) {
    for (V& v : b.v) v = V(0);
    return;
  }
  const bool left = side == kLeft;
  const int64_t d = left ? m : n, rhs = left ? n : m;
  const bool conj = trans == blas_reference::kOpC;
  // T(i, l): the matrix of the substitution, op(A) for LEFT and op(A)^T for
  // RIGHT (X op(A) = alpha B is op(A)^T X^T = alpha B^T). A(r, c) lies in the
  // stored triangle exactly where T(i, l) lies in T's own triangle.
  const bool t_is_transpose_of_a = (trans != blas_reference::kOpN) != !left;
  const bool t_lower = (uplo == kLower) != t_is_transpose_of_a;
  auto t_at = [&](int64_t i, int64_t l) -> V {
    if (i == l && diag == kUnit) return V(1);
    const V v = t_is_transpose_of_a ? a.at(l, i) : a.at(i, l);
    return blas_reference::conj_if(v, conj);
  };
  auto elem = [&](int64_t p, int64_t q) -> V& { return left ? b.at(p, q) : b.at(q, p); };
  parallel_chunks(rhs, [&](int64_t first, int64_t last) {
    for (int64_t q = first; q < last; ++q) {
      for (int64_t s = 0; s < d; ++s) {
        const int64_t i = t_lower ? s : d - 1 - s;  // forward for lower T, backward for upper
        V sum = blas_reference::mul(alpha, elem(i, q));
        for (int64_t t = 0; t < s; ++t) {
          const int64_t l = t_lower ? t : d - 1 - t;
          sum -= blas_reference::mul(t_at(i, l), elem(l, q));
        }
        elem(i, q) = sum / t_at(i, i);
      }
    }
  }, rhs * d * d > (1 << 16));
}

}  // namespace kgb::level3_reference

namespace kgb::level3_reference {

// Complex standard normal values with ~3% of the elements NaN in both parts
// (for C of complex routines: a kernel that reads C when beta == 0 turns the
// result NaN). One NaN part, or an infinity, would make the expected value
// depend on how an implementation multiplies by beta; both parts NaN do not.
inline void fill_complex_with_nans(GeneratorArgs& g) {
  const int64_t n = g.tensor.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double re = standard_normal(g.rng);
    g.tensor.set_complex(i, {re, standard_normal(g.rng)});
  }
  if (n == 0) return;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t specials = std::max<int64_t>(1, n * 3 / 100);
  for (int64_t k = 0; k < specials; ++k) g.tensor.set_complex(static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n)), {nan, nan});
}

// The full symmetric (not Hermitian) matrix whose `uplo` triangle is stored in
// a, row-major d x d; the other triangle of a is never read.
template <class V>
std::vector<V> symmetric_full(const Dense<V>& a, int64_t uplo) {
  const int64_t d = a.rows;
  std::vector<V> s(static_cast<size_t>(d * d));
  for (int64_t i = 0; i < d; ++i)
    for (int64_t l = 0; l < d; ++l) s[static_cast<size_t>(i * d + l)] = in_triangle(uplo, i, l) ? a.at(i, l) : a.at(l, i);
  return s;
}

}  // namespace kgb::level3_reference
