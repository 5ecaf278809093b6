// Shared by the BLAS level-2 references (ger, geru, gerc, syr2, symv, trsv,
// tbmv, sbmv) and their input generators. Matrices are column-major views
// [rows, cols] with strides [1, ld] (HostTensor's logical element (i, j) is
// linear index i * cols + j whatever the strides); vectors are 1-D views
// whose signed stride is the BLAS increment (logical element i is the
// vector's element i for either sign). Real values in double, complex values
// in complex<double> with the textbook product, rounded once into the
// output's dtype. cuBLAS's enum numbers: CUBLAS_FILL_MODE_LOWER/UPPER = 0/1,
// CUBLAS_OP_N/T/C = 0/1/2, CUBLAS_DIAG_NON_UNIT/UNIT = 0/1.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "blas_reference.h"
#include "kgb/random.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::level2_reference {

enum Fill : int64_t { kLower = 0, kUpper = 1 };
enum Diag : int64_t { kNonUnit = 0, kUnit = 1 };

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Whether element (i, j) lies in the `uplo` triangle (diagonal included).
inline bool in_triangle(int64_t uplo, int64_t i, int64_t j) { return uplo == kLower ? i >= j : i <= j; }

inline void require(bool ok, const std::string& task, const char* what) {
  if (!ok) throw std::runtime_error(task + ": " + what);
}

inline int64_t fill_mode(const RefArgs& args, const std::string& task) {
  const int64_t uplo = args.int_scalar("uplo");
  require(uplo == kLower || uplo == kUpper, task, "uplo must be CUBLAS_FILL_MODE_LOWER or _UPPER");
  return uplo;
}

// General rank-1 update A := alpha * x * op(y)^T + A, op = conj for gerc.
// alpha == 0 returns before reading x or y (BLAS), A keeps its values.
template <class V>
void ger(RefArgs& args, const std::string& task, bool conjugate_y) {
  const HostTensor& x = args.tensor("x");
  const HostTensor& y = args.tensor("y");
  HostTensor& a = args.tensor("A");
  require(x.rank() == 1 && y.rank() == 1 && a.rank() == 2, task, "x and y must be vectors and A a matrix");
  const int64_t m = a.size(0), n = a.size(1);
  require(x.size(0) == m && y.size(0) == n, task, "A must be size(x) x size(y)");
  V alpha;
  if constexpr (std::is_same_v<V, double>)
    alpha = args.scalar("alpha");
  else
    alpha = args.complex_scalar("alpha");
  if (alpha == V(0) || m == 0 || n == 0) return;
  const std::vector<V> xv = blas_reference::logical_values<V>(x), yv = blas_reference::logical_values<V>(y);
  std::vector<V> av = blas_reference::logical_values<V>(a);
  for (int64_t i = 0; i < m; ++i) {
    const V ax = blas_reference::mul(alpha, xv[static_cast<size_t>(i)]);
    for (int64_t j = 0; j < n; ++j)
      av[static_cast<size_t>(i * n + j)] += blas_reference::mul(ax, blas_reference::conj_if(yv[static_cast<size_t>(j)], conjugate_y));
  }
  if constexpr (std::is_same_v<V, double>)
    from_doubles(a, av);
  else
    from_complex(a, av);
}

// Symmetric rank-2 update of the `uplo` triangle of A (real):
// A(i, j) += alpha * (x[i] * y[j] + y[i] * x[j]) for (i, j) in the triangle;
// the other triangle keeps its values. alpha == 0 returns before reading x
// or y (BLAS).
inline void syr2(RefArgs& args, const std::string& task) {
  const int64_t uplo = fill_mode(args, task);
  const double alpha = args.scalar("alpha");
  const HostTensor& x = args.tensor("x");
  const HostTensor& y = args.tensor("y");
  HostTensor& a = args.tensor("A");
  require(x.rank() == 1 && y.rank() == 1 && a.rank() == 2, task, "x and y must be vectors and A a matrix");
  const int64_t n = a.size(0);
  require(a.size(1) == n && x.size(0) == n && y.size(0) == n, task, "A must be n x n with n = size(x) = size(y)");
  if (alpha == 0 || n == 0) return;
  const std::vector<double> xv = to_doubles(x), yv = to_doubles(y);
  std::vector<double> av = to_doubles(a);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (in_triangle(uplo, i, j))
        av[static_cast<size_t>(i * n + j)] +=
            alpha * (xv[static_cast<size_t>(i)] * yv[static_cast<size_t>(j)] + yv[static_cast<size_t>(i)] * xv[static_cast<size_t>(j)]);
  from_doubles(a, av);
}

// Fills the generator's tensor with standard normal values (both parts for
// complex dtypes); returns whether the dtype is complex.
inline bool fill_standard_normal(GeneratorArgs& g) {
  const int64_t n = g.tensor.numel();
  const bool complex = is_complex(g.tensor.dtype());
  for (int64_t i = 0; i < n; ++i) {
    const double re = standard_normal(g.rng);
    if (complex)
      g.tensor.set_complex(i, {re, standard_normal(g.rng)});
    else
      g.tensor.set(i, re);
  }
  return complex;
}

// Symmetric matrix-vector product y := alpha * A * x + beta * y with A
// given by its `uplo` triangle (sym(i, j) = A(i, j) inside the triangle,
// A(j, i) outside; no conjugation, also for complex values). BLAS rules:
// beta == 0 never reads y, alpha == 0 reads neither A nor x.
template <class V>
void symv(RefArgs& args, const std::string& task) {
  const int64_t uplo = fill_mode(args, task);
  const HostTensor& a = args.tensor("A");
  const HostTensor& x = args.tensor("x");
  HostTensor& y = args.tensor("y");
  require(x.rank() == 1 && y.rank() == 1 && a.rank() == 2, task, "x and y must be vectors and A a matrix");
  const int64_t n = a.size(0);
  require(a.size(1) == n && x.size(0) == n && y.size(0) == n, task, "A must be n x n with n = size(x) = size(y)");
  V alpha, beta;
  if constexpr (std::is_same_v<V, double>) {
    alpha = args.scalar("alpha");
    beta = args.scalar("beta");
  } else {
    alpha = args.complex_scalar("alpha");
    beta = args.complex_scalar("beta");
  }
  std::vector<V> out(static_cast<size_t>(n), V(0));
  if (alpha != V(0)) {
    const std::vector<V> av = blas_reference::logical_values<V>(a), xv = blas_reference::logical_values<V>(x);
    parallel_chunks(n, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        V sum(0);
        for (int64_t j = 0; j < n; ++j) {
          const V aij = in_triangle(uplo, i, j) ? av[static_cast<size_t>(i * n + j)] : av[static_cast<size_t>(j * n + i)];
          sum += blas_reference::mul(aij, xv[static_cast<size_t>(j)]);
        }
        out[static_cast<size_t>(i)] = blas_reference::mul(alpha, sum);
      }
    });
  }
  if (beta != V(0)) {
    const std::vector<V> yv = blas_reference::logical_values<V>(y);
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] += blas_reference::mul(beta, yv[static_cast<size_t>(i)]);
  }
  if constexpr (std::is_same_v<V, double>)
    from_doubles(y, out);
  else
    from_complex(y, out);
}

// The output vector of y := ... + beta * y: standard normal values (both
// parts for complex dtypes) with about 3% NaN elements (NaN in both parts;
// at least one in vectors of 8 or more elements, none in shorter ones so
// that tiny cases keep a finite answer). With beta == 0 BLAS never reads y,
// so the NaN must not reach the result; with beta != 0 they propagate.
inline void output_vector_with_nans(GeneratorArgs& g) {
  const int64_t n = g.tensor.numel();
  const bool complex = fill_standard_normal(g);
  if (n < 8) return;
  const int64_t nans = std::max<int64_t>(1, n * 3 / 100);
  for (int64_t k = 0; k < nans; ++k) {
    const auto at = static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n));
    if (complex)
      g.tensor.set_complex(at, {kNaN, kNaN});
    else
      g.tensor.set(at, kNaN);
  }
}

// Triangular solve op(A) * x_new = x in place (trsv), real: op = A for
// CUBLAS_OP_N, A^T for _T and _C; only the `uplo` triangle is read, and the
// diagonal is taken as 1 without being read for CUBLAS_DIAG_UNIT. Exact
// substitution in double on logical elements, rounded once into x.
inline void trsv(RefArgs& args, const std::string& task) {
  const int64_t uplo = fill_mode(args, task), trans = args.int_scalar("trans"), diag = args.int_scalar("diag");
  require(trans >= blas_reference::kOpN && trans <= blas_reference::kOpC, task, "trans must be CUBLAS_OP_N, _T or _C");
  require(diag == kNonUnit || diag == kUnit, task, "diag must be CUBLAS_DIAG_NON_UNIT or _UNIT");
  const HostTensor& a = args.tensor("A");
  HostTensor& x = args.tensor("x");
  require(a.rank() == 2 && x.rank() == 1, task, "A must be a matrix and x a vector");
  const int64_t n = a.size(0);
  require(a.size(1) == n && x.size(0) == n, task, "A must be n x n with n = size(x)");
  const std::vector<double> av = to_doubles(a);
  std::vector<double> xv = to_doubles(x);
  const bool transposed = trans != blas_reference::kOpN;
  // op(A)(i, j): A(i, j), or A(j, i) when transposed; op(A) is lower triangular
  // when exactly one of (uplo == lower, not transposed) fails.
  auto op = [&](int64_t i, int64_t j) { return transposed ? av[static_cast<size_t>(j * n + i)] : av[static_cast<size_t>(i * n + j)]; };
  const bool forward = (uplo == kLower) != transposed;
  for (int64_t s = 0; s < n; ++s) {
    const int64_t i = forward ? s : n - 1 - s;
    double v = xv[static_cast<size_t>(i)];
    for (int64_t t = 0; t < s; ++t) {
      const int64_t j = forward ? t : n - 1 - t;
      v -= op(i, j) * xv[static_cast<size_t>(j)];
    }
    xv[static_cast<size_t>(i)] = diag == kUnit ? v : v / op(i, i);
  }
  from_doubles(x, xv);
}

// A well-conditioned triangular matrix for trsv: the `uplo` triangle holds
// off-diagonal values uniform in (-0.75/n, 0.75/n) (every row and column of
// the off-diagonal part sums to less than 0.75 in absolute value) and
// diagonal values of random sign with magnitude in [1, 2), so op(A)^-1 has
// norm below 4 for either op and the solution stays well scaled at any n.
// The other triangle is NaN, and so is the stored diagonal for
// CUBLAS_DIAG_UNIT (the case's `diag` scalar), which must then not be read.
inline void well_conditioned_triangle(GeneratorArgs& g) {
  const HostTensor& t = g.tensor;
  if (t.rank() != 2 || t.size(0) != t.size(1)) throw std::runtime_error(g.param + ": a square matrix is expected");
  const int64_t n = t.size(0), uplo = g.scalars.at("uplo").i, diag = g.scalars.at("diag").i;
  const double scale = 0.75 / static_cast<double>(std::max<int64_t>(n, 1));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double v = kNaN;
      if (i == j) {
        const double magnitude = 1.0 + uniform_open01(g.rng);
        if (diag == kNonUnit) v = (g.rng() & 1) ? magnitude : -magnitude;
      } else if (in_triangle(uplo, i, j)) {
        v = (2.0 * uniform_open01(g.rng) - 1.0) * scale;
      }
      g.tensor.set(i * n + j, v);
    }
}

// Band storage (gbmv/sbmv/tbmv): a (k + 1) x n column-major view holds the
// band of an n x n matrix, column j of the band holding column j of the
// matrix. Upper (uplo = 1): A(i, j), max(0, j - k) <= i <= j, sits at band
// row k + i - j (row k is the diagonal). Lower (uplo = 0): A(i, j),
// j <= i <= min(n - 1, j + k), sits at band row i - j (row 0 is the
// diagonal). The other band elements (the corners) are not part of A.
inline bool band_element_used(int64_t uplo, int64_t k, int64_t n, int64_t r, int64_t j) {
  return uplo == kUpper ? r >= k - j : r + j <= n - 1;
}

// Band row holding A(i, j) of the `uplo` triangle, or -1 when (i, j) is
// outside the band.
inline int64_t band_row(int64_t uplo, int64_t k, int64_t i, int64_t j) {
  const int64_t d = uplo == kUpper ? j - i : i - j;
  if (d < 0 || d > k) return -1;
  return uplo == kUpper ? k + i - j : i - j;
}

// Triangular band matrix-vector product x := op(A) * x in place (tbmv),
// real: op = A for CUBLAS_OP_N, A^T for _T and _C; the diagonal is taken as 1
// without being read for CUBLAS_DIAG_UNIT. In double, rounded once into x.
inline void tbmv(RefArgs& args, const std::string& task) {
  const int64_t uplo = fill_mode(args, task), trans = args.int_scalar("trans"), diag = args.int_scalar("diag");
  require(trans >= blas_reference::kOpN && trans <= blas_reference::kOpC, task, "trans must be CUBLAS_OP_N, _T or _C");
  require(diag == kNonUnit || diag == kUnit, task, "diag must be CUBLAS_DIAG_NON_UNIT or _UNIT");
  const HostTensor& a = args.tensor("A");
  HostTensor& x = args.tensor("x");
  require(a.rank() == 2 && x.rank() == 1, task, "A must be a (k + 1) x n band and x a vector");
  const int64_t k = a.size(0) - 1, n = a.size(1);
  require(k >= 0 && x.size(0) == n, task, "A must be (k + 1) x n with n = size(x)");
  const std::vector<double> band = to_doubles(a), xv = to_doubles(x);
  std::vector<double> out(static_cast<size_t>(n), 0.0);
  const bool transposed = trans != blas_reference::kOpN;
  for (int64_t i = 0; i < n; ++i) {
    double sum = 0;
    for (int64_t j = std::max<int64_t>(0, i - k); j <= std::min(n - 1, i + k); ++j) {
      // op(A)(i, j) = A(i, j), or A(j, i) when transposed.
      const int64_t row = transposed ? j : i, col = transposed ? i : j;
      const int64_t r = band_row(uplo, k, row, col);
      if (r < 0) continue;
      const double v = (row == col && diag == kUnit) ? 1.0 : band[static_cast<size_t>(r * n + col)];
      sum += v * xv[static_cast<size_t>(j)];
    }
    out[static_cast<size_t>(i)] = sum;
  }
  from_doubles(x, out);
}

// Symmetric band matrix-vector product y := alpha * A * x + beta * y (sbmv),
// real, A given by the `uplo` triangle of its band. BLAS rules: beta == 0
// never reads y, alpha == 0 reads neither A nor x.
inline void sbmv(RefArgs& args, const std::string& task) {
  const int64_t uplo = fill_mode(args, task);
  const double alpha = args.scalar("alpha"), beta = args.scalar("beta");
  const HostTensor& a = args.tensor("A");
  const HostTensor& x = args.tensor("x");
  HostTensor& y = args.tensor("y");
  require(a.rank() == 2 && x.rank() == 1 && y.rank() == 1, task, "A must be a (k + 1) x n band, x and y vectors");
  const int64_t k = a.size(0) - 1, n = a.size(1);
  require(k >= 0 && x.size(0) == n && y.size(0) == n, task, "A must be (k + 1) x n with n = size(x) = size(y)");
  std::vector<double> out(static_cast<size_t>(n), 0.0);
  if (alpha != 0) {
    const std::vector<double> band = to_doubles(a), xv = to_doubles(x);
    for (int64_t i = 0; i < n; ++i) {
      double sum = 0;
      for (int64_t j = std::max<int64_t>(0, i - k); j <= std::min(n - 1, i + k); ++j) {
        // S(i, j) = A(i, j) inside the stored triangle, A(j, i) outside.
        const bool stored = in_triangle(uplo, i, j);
        const int64_t row = stored ? i : j, col = stored ? j : i;
        sum += band[static_cast<size_t>(band_row(uplo, k, row, col) * n + col)] * xv[static_cast<size_t>(j)];
      }
      out[static_cast<size_t>(i)] = alpha * sum;
    }
  }
  if (beta != 0) {
    const std::vector<double> yv = to_doubles(y);
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] += beta * yv[static_cast<size_t>(i)];
  }
  from_doubles(y, out);
}

// A band matrix for tbmv/sbmv: standard normal values in the band elements
// that are part of A and NaN in the unused corners, so a kernel that reads a
// corner produces NaN (and one that writes the band, an input, is caught by
// the input hash). For triangular band matrices with CUBLAS_DIAG_UNIT (a
// case scalar `diag` of 1) the diagonal row is NaN too: it must not be read.
inline void poisoned_band(GeneratorArgs& g) {
  const HostTensor& t = g.tensor;
  if (t.rank() != 2 || t.size(0) < 1) throw std::runtime_error(g.param + ": a (k + 1) x n band is expected");
  const int64_t k = t.size(0) - 1, n = t.size(1), uplo = g.scalars.at("uplo").i;
  const auto diag_it = g.scalars.find("diag");
  const bool unit = diag_it != g.scalars.end() && diag_it->second.i == kUnit;
  const int64_t diag_row = uplo == kUpper ? k : 0;
  for (int64_t r = 0; r <= k; ++r)
    for (int64_t j = 0; j < n; ++j) {
      const bool used = band_element_used(uplo, k, n, r, j) && !(unit && r == diag_row);
      g.tensor.set(r * n + j, used ? standard_normal(g.rng) : kNaN);
    }
}

// Whether the case's `alpha` scalar (real or complex) is zero.
inline bool alpha_is_zero(const GeneratorArgs& g) {
  const ScalarValue& a = g.scalars.at("alpha");
  return a.kind == ScalarValue::Kind::Complex ? a.c == std::complex<double>(0) : a.number().value_or(1) == 0;
}

// A vector operand of an update scaled by alpha (ger, geru, gerc): standard
// normal values (both parts for complex dtypes) with a few special elements.
// When alpha == 0 BLAS must not read the vector: a quarter of its elements
// are NaN (real: NaN, +Inf, -Inf in turn), so a kernel that multiplies by
// alpha == 0 anyway produces NaN. Otherwise about 2% of the elements (none in
// vectors shorter than 50) are special and propagate into their row or column
// of the result. Complex specials are NaN in both parts: that stays NaN under
// every product convention, so the expected result does not depend on how an
// implementation multiplies.
inline void vector_with_specials(GeneratorArgs& g) {
  const int64_t n = g.tensor.numel();
  const bool complex = fill_standard_normal(g);
  const int64_t specials = alpha_is_zero(g) ? (n + 3) / 4 : n / 50;
  const double real_specials[] = {kNaN, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  for (int64_t k = 0; k < specials; ++k) {
    const auto at = static_cast<int64_t>(g.rng() % static_cast<uint64_t>(n));
    if (complex)
      g.tensor.set_complex(at, {kNaN, kNaN});
    else
      g.tensor.set(at, real_specials[k % 3]);
  }
}

// A square matrix whose `uplo` triangle (diagonal included) holds standard
// normal values and whose other triangle is NaN: a kernel that reads the
// unreferenced triangle produces NaN, and one that writes it is caught by the
// exact NaN match on inout matrices (or the input hash on read-only ones).
// The fill mode comes from the case's `uplo` scalar.
inline void poisoned_triangle(GeneratorArgs& g) {
  const HostTensor& t = g.tensor;
  if (t.rank() != 2 || t.size(0) != t.size(1)) throw std::runtime_error(g.param + ": a square matrix is expected");
  const int64_t n = t.size(0), uplo = g.scalars.at("uplo").i;
  const bool complex = is_complex(t.dtype());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const bool used = in_triangle(uplo, i, j);
      if (complex) {
        const double re = used ? standard_normal(g.rng) : kNaN;
        g.tensor.set_complex(i * n + j, {re, used ? standard_normal(g.rng) : kNaN});
      } else {
        g.tensor.set(i * n + j, used ? standard_normal(g.rng) : kNaN);
      }
    }
}

}  // namespace kgb::level2_reference
