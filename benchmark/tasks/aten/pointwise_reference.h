// Shared by the references of ATen's pointwise tasks (unary, binary, in-place,
// loss and pointwise-backward): PyTorch's right-aligned broadcasting on
// logical indices, and maps that compute in fp64 (or exact int64 / complex)
// and round once into the output dtype. A reference stays the statement of
// its op's semantics: the scalar function it passes is the definition.
#pragma once

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kgb/tensor.h"

namespace kgb::pointwise {

// How far one input's row-major logical index advances per unit of each out
// dim under right-aligned broadcasting (0 along broadcast dims).
inline std::vector<int64_t> broadcast_steps(const std::vector<int64_t>& out_sizes, const std::vector<int64_t>& in_sizes) {
  const size_t r = out_sizes.size(), k = in_sizes.size();
  if (k > r) throw std::runtime_error("pointwise reference: an input has a higher rank than out");
  std::vector<int64_t> step(r, 0);
  int64_t stride = 1;
  for (size_t j = 0; j < k; ++j) {
    const size_t din = k - 1 - j, dout = r - 1 - j;
    if (in_sizes[din] != 1) {
      if (in_sizes[din] != out_sizes[dout]) throw std::runtime_error("pointwise reference: shapes do not broadcast to out");
      step[dout] = stride;
    }
    stride *= in_sizes[din];
  }
  return step;
}

// Calls visit(i, src) for every element i of out in row-major logical order,
// src[k] being the logical index input k reads there. The indices are walked
// with an odometer rather than stored: a stored table per input cost as much
// memory as the fp64 values themselves.
template <class Visit>
void for_each_broadcast(const std::vector<int64_t>& out_sizes, const std::vector<const HostTensor*>& inputs, Visit visit) {
  const size_t r = out_sizes.size(), m = inputs.size();
  std::vector<std::vector<int64_t>> steps;
  for (const HostTensor* t : inputs) steps.push_back(broadcast_steps(out_sizes, t->sizes()));
  int64_t n = 1;
  for (int64_t s : out_sizes) n *= s;
  std::vector<int64_t> idx(r, 0), src(m, 0);
  for (int64_t i = 0; i < n; ++i) {
    visit(static_cast<size_t>(i), src.data());
    for (size_t d = r; d-- > 0;) {  // odometer increment over out's index
      for (size_t k = 0; k < m; ++k) src[k] += steps[k][d];
      if (++idx[d] < out_sizes[d]) break;
      for (size_t k = 0; k < m; ++k) src[k] -= steps[k][d] * out_sizes[d];
      idx[d] = 0;
    }
  }
}

// out[i] = f(in_0[src_0(i)], in_1[src_1(i)], ...) in double, every input
// broadcast to out, rounded once into out's dtype. The inputs' values are the
// logical ones (conj/neg flags and dtypes already applied by HostTensor).
template <class F>
void map_doubles(const std::vector<const HostTensor*>& inputs, HostTensor& out, F f) {
  std::vector<std::vector<double>> values;
  for (const HostTensor* t : inputs) values.push_back(to_doubles(*t));
  std::vector<double> r(static_cast<size_t>(out.numel())), args(inputs.size());
  for_each_broadcast(out.sizes(), inputs, [&](size_t i, const int64_t* src) {
    for (size_t k = 0; k < inputs.size(); ++k) args[k] = values[k][static_cast<size_t>(src[k])];
    r[i] = f(args);
  });
  from_doubles(out, r);
}

// The same in exact int64 (integer and bool dtypes; bool stores x != 0).
template <class F>
void map_ints(const std::vector<const HostTensor*>& inputs, HostTensor& out, F f) {
  std::vector<std::vector<int64_t>> values;
  for (const HostTensor* t : inputs) values.push_back(to_ints(*t));
  std::vector<int64_t> r(static_cast<size_t>(out.numel())), args(inputs.size());
  for_each_broadcast(out.sizes(), inputs, [&](size_t i, const int64_t* src) {
    for (size_t k = 0; k < inputs.size(); ++k) args[k] = values[k][static_cast<size_t>(src[k])];
    r[i] = f(args);
  });
  from_ints(out, r);
}

// The same in std::complex<double> (c64/c128 outputs; real inputs read as x + 0i).
template <class F>
void map_complex(const std::vector<const HostTensor*>& inputs, HostTensor& out, F f) {
  std::vector<std::vector<std::complex<double>>> values;
  for (const HostTensor* t : inputs) values.push_back(to_complex(*t));
  std::vector<std::complex<double>> r(static_cast<size_t>(out.numel())), args(inputs.size());
  for_each_broadcast(out.sizes(), inputs, [&](size_t i, const int64_t* src) {
    for (size_t k = 0; k < inputs.size(); ++k) args[k] = values[k][static_cast<size_t>(src[k])];
    r[i] = f(args);
  });
  from_complex(out, r);
}

}  // namespace kgb::pointwise
