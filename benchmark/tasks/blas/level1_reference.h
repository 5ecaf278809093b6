// Shared by the BLAS level-1 references (axpy, scal, dot, asum, copy, swap).
// Vectors are 1-D views whose signed stride is the BLAS increment; HostTensor's
// logical element i is the vector's element i for either sign (a negative
// increment walks the vector from its far end, as reference BLAS and cuBLAS
// do), so the references work on logical values only. Real values in double,
// complex values in complex<double> with the textbook product, rounded once
// into the vector's dtype.
#pragma once

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "blas_reference.h"
#include "kgb/reference.h"
#include "kgb/tensor.h"

namespace kgb::level1_reference {

inline void require_vector(const HostTensor& v, const std::string& task, const char* name) {
  if (v.rank() != 1) throw std::runtime_error(task + ": " + name + " must be a 1-D vector");
}

inline void require_pair(const HostTensor& x, const HostTensor& y, const std::string& task) {
  require_vector(x, task, "x");
  require_vector(y, task, "y");
  if (x.size(0) != y.size(0)) throw std::runtime_error(task + ": x and y must have the same length");
}

// y := alpha * x + y; alpha == 0 returns before reading x (BLAS).
inline void axpy(RefArgs& args, const std::string& task) {
  const double alpha = args.scalar("alpha");
  const HostTensor& x = args.tensor("x");
  HostTensor& y = args.tensor("y");
  require_pair(x, y, task);
  if (alpha == 0.0) return;
  const std::vector<double> xv = to_doubles(x);
  std::vector<double> yv = to_doubles(y);
  for (size_t i = 0; i < yv.size(); ++i) yv[i] += alpha * xv[i];
  from_doubles(y, yv);
}

// y := x element by element (copy), or x <-> y (swap), on logical values:
// exact for the floating-point and complex dtypes (f32, f64, c64, c128).
inline void copy_values(const HostTensor& from, HostTensor& to) {
  if (is_complex(from.dtype()))
    from_complex(to, to_complex(from));
  else
    from_doubles(to, to_doubles(from));
}

// sum over i of op(x[i]) * y[i] in double or complex<double>, op = conj when
// `conjugate_x` (dotc); the textbook complex product, as BLAS kernels compute.
template <class V>
V dot(const HostTensor& x, const HostTensor& y, bool conjugate_x) {
  const std::vector<V> xv = blas_reference::logical_values<V>(x), yv = blas_reference::logical_values<V>(y);
  V sum(0);
  for (size_t i = 0; i < xv.size(); ++i) sum += blas_reference::mul(blas_reference::conj_if(xv[i], conjugate_x), yv[i]);
  return sum;
}

}  // namespace kgb::level1_reference
