// Shared by the GEMV references (blas/*gemv*, emitted by scripts/taskgen/gemv.py):
// y := alpha * op(A) x + beta * y on logical elements, in double or
// complex<double>, rounded once into y's dtype. op is cuBLAS's
// CUBLAS_OP_N/T/C (0/1/2); op C conjugates A (a no-op for real data).
//
// A problem is one matrix and its two vectors, each addressed by element
// offsets relative to the tensor's data (the logical element 0): A(i, j) at
// a_base + i * a_rs + j * a_cs, x(l) at x_base + l * incx, y(r) at
// y_base + r * incy. Signed increments are what the views' strides give, so a
// negative BLAS increment (the vector walked from its far end) needs nothing
// special here. The observable BLAS rules: m == 0 or n == 0 returns before
// touching y (even when beta != 1); alpha == 0 reads neither A nor x;
// beta == 0 never reads y (its NaNs do not propagate).
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "blas_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::gemv_reference {

struct Problem {
  const HostTensor* a;
  int64_t a_base, a_rs, a_cs;
  const HostTensor* x;
  int64_t x_base, incx;
  HostTensor* y;
  int64_t y_base, incy;
};

template <class V> V load(const HostTensor& t, int64_t e);
template <> inline double load<double>(const HostTensor& t, int64_t e) { return t.get_at(e); }
template <> inline std::complex<double> load<std::complex<double>>(const HostTensor& t, int64_t e) {
  if (t.dtype() == DType::C64)
    return {tensor_detail::load<float>(t.data(), 2 * e), tensor_detail::load<float>(t.data(), 2 * e + 1)};
  return {tensor_detail::load<double>(t.data(), 2 * e), tensor_detail::load<double>(t.data(), 2 * e + 1)};
}

inline void store(HostTensor& t, int64_t e, double v) { t.set_at(e, v); }
inline void store(HostTensor& t, int64_t e, std::complex<double> v) {
  if (t.dtype() == DType::C64) {
    tensor_detail::store<float>(t.data(), 2 * e, static_cast<float>(v.real()));
    tensor_detail::store<float>(t.data(), 2 * e + 1, static_cast<float>(v.imag()));
  } else {
    tensor_detail::store<double>(t.data(), 2 * e, v.real());
    tensor_detail::store<double>(t.data(), 2 * e + 1, v.imag());
  }
}

// Every problem has A of m x n (before op); y has m elements for op N and n
// otherwise. Work is cut into (problem, block of outputs) units spread over
// the cores; op N walks A column by column inside a unit (cache friendly for
// column-major storage), op T/C takes one column dot product per output.
template <class V>
void gemv_batch(int64_t trans, V alpha, V beta, int64_t m, int64_t n, const std::vector<Problem>& problems) {
  namespace br = kgb::blas_reference;
  if (trans < br::kOpN || trans > br::kOpC) throw std::runtime_error("gemv: trans must be CUBLAS_OP_N, _T or _C");
  if (m == 0 || n == 0 || problems.empty()) return;  // quick return: y untouched
  const int64_t len_y = trans == br::kOpN ? m : n, len_x = trans == br::kOpN ? n : m;
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (len_y + kBlock - 1) / kBlock;
  const bool conj = trans == br::kOpC;
  parallel_chunks(static_cast<int64_t>(problems.size()) * blocks, [&](int64_t first, int64_t last) {
    std::vector<V> acc(kBlock);
    for (int64_t u = first; u < last; ++u) {
      const Problem& p = problems[static_cast<size_t>(u / blocks)];
      const int64_t r0 = (u % blocks) * kBlock, r1 = std::min(len_y, r0 + kBlock);
      std::fill(acc.begin(), acc.end(), V(0));
      if (alpha != V(0)) {
        if (trans == br::kOpN) {
          for (int64_t l = 0; l < len_x; ++l) {
            const V xl = load<V>(*p.x, p.x_base + l * p.incx);
            for (int64_t r = r0; r < r1; ++r) acc[static_cast<size_t>(r - r0)] += br::mul(load<V>(*p.a, p.a_base + r * p.a_rs + l * p.a_cs), xl);
          }
        } else {
          for (int64_t r = r0; r < r1; ++r) {
            V sum(0);
            for (int64_t l = 0; l < len_x; ++l)
              sum += br::mul(br::conj_if(load<V>(*p.a, p.a_base + l * p.a_rs + r * p.a_cs), conj), load<V>(*p.x, p.x_base + l * p.incx));
            acc[static_cast<size_t>(r - r0)] = sum;
          }
        }
      }
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t e = p.y_base + r * p.incy;
        V v = br::mul(alpha, acc[static_cast<size_t>(r - r0)]);
        if (beta != V(0)) v += br::mul(beta, load<V>(*p.y, e));  // beta == 0 never reads y
        store(*p.y, e, v);
      }
    }
  });
}

// Checks that A (m x n), x and y agree with op.
inline void check_lengths(int64_t trans, int64_t m, int64_t n, int64_t len_x, int64_t len_y, const std::string& task) {
  const bool op_n = trans == blas_reference::kOpN;
  if (len_x != (op_n ? n : m) || len_y != (op_n ? m : n)) throw std::runtime_error(task + ": the lengths of x and y do not agree with A and trans");
}

// The problems of a call, and A's common m x n.
struct Batch {
  int64_t m = 0, n = 0;
  std::vector<Problem> problems;
};

// One product: A a 2-D column-major view, x and y 1-D views.
inline Batch single(RefArgs& args, int64_t trans, const std::string& task) {
  const HostTensor& a = args.tensor("A");
  const HostTensor& x = args.tensor("x");
  HostTensor& y = args.tensor("y");
  if (a.rank() != 2 || x.rank() != 1 || y.rank() != 1) throw std::runtime_error(task + ": A must be 2-D, x and y 1-D");
  Batch b{a.size(0), a.size(1), {}};
  check_lengths(trans, b.m, b.n, x.size(0), y.size(0), task);
  b.problems.push_back({&a, 0, a.strides()[0], a.strides()[1], &x, 0, x.strides()[0], &y, 0, y.strides()[0]});
  return b;
}

// Strided batch: A [m, n, batch], x and y [length, batch]; the last stride
// is the distance between items (0 shares one matrix or vector).
inline Batch strided(RefArgs& args, int64_t trans, const std::string& task) {
  const HostTensor& a = args.tensor("A");
  const HostTensor& x = args.tensor("x");
  HostTensor& y = args.tensor("y");
  if (a.rank() != 3 || x.rank() != 2 || y.rank() != 2) throw std::runtime_error(task + ": A must be 3-D, x and y 2-D");
  const int64_t batch = a.size(2);
  if (x.size(1) != batch || y.size(1) != batch) throw std::runtime_error(task + ": batch sizes differ");
  Batch b{a.size(0), a.size(1), {}};
  check_lengths(trans, b.m, b.n, x.size(0), y.size(0), task);
  for (int64_t i = 0; i < batch; ++i)
    b.problems.push_back({&a, i * a.strides()[2], a.strides()[0], a.strides()[1], &x, i * x.strides()[1], x.strides()[0], &y,
                          i * y.strides()[1], y.strides()[0]});
  return b;
}

// Pointer arrays: lists Aarray (2-D items), xarray and yarray (1-D items).
inline Batch pointer_arrays(RefArgs& args, int64_t trans, const std::string& task) {
  const auto& a = args.list("Aarray");
  const auto& x = args.list("xarray");
  const auto& y = args.list("yarray");
  if (a.size() != y.size() || x.size() != y.size()) throw std::runtime_error(task + ": the three lists differ in length");
  Batch b;
  for (size_t i = 0; i < y.size(); ++i) {
    if (!a[i] || !x[i] || !y[i]) throw std::runtime_error(task + ": lists hold no None items");
    if (a[i]->rank() != 2 || x[i]->rank() != 1 || y[i]->rank() != 1) throw std::runtime_error(task + ": items must be 2-D and 1-D");
    if (i > 0 && (a[i]->size(0) != b.m || a[i]->size(1) != b.n)) throw std::runtime_error(task + ": items of one batch differ in shape");
    b.m = a[i]->size(0);
    b.n = a[i]->size(1);
    check_lengths(trans, b.m, b.n, x[i]->size(0), y[i]->size(0), task);
    b.problems.push_back({a[i], 0, a[i]->strides()[0], a[i]->strides()[1], x[i], 0, x[i]->strides()[0], y[i], 0, y[i]->strides()[0]});
  }
  return b;
}

// y's generator for the complex tasks: complex normal values with ~3% of the
// elements NaN in both parts (the harness's `special` modifier covers real
// dtypes only). A NaN in both parts stays NaN under any complex product with
// a nonzero beta and catches a kernel that reads y when beta == 0.
inline void complex_y_with_nans(GeneratorArgs& g) {
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

}  // namespace kgb::gemv_reference
