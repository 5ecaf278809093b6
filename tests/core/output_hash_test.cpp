// output_bits_hash: the determinism check's hash sees every bit of every
// element, whatever the dtype's width and the layout.
#include <doctest/doctest.h>

#include <complex>

#include "kgb/case.h"
#include "kgb/tensor.h"

namespace {

// A 3x4 view with a padded row stride (not contiguous), every element set.
kgb::HostTensor padded(kgb::DType dtype) {
  kgb::HostTensor t(dtype, {3, 4}, {6, 1}, 18, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.set_complex(i, {1.0 + static_cast<double>(i), -2.0 * static_cast<double>(i)});
  return t;
}

uint64_t hash_of(const kgb::HostTensor& t) {
  kgb::CaseOutputs outs;
  outs.tensors.emplace("out", t);
  return kgb::output_bits_hash(outs);
}

}  // namespace

TEST_CASE("the output hash covers both halves of a complex element in a strided view") {
  for (kgb::DType dtype : {kgb::DType::C128, kgb::DType::C64}) {
    const kgb::HostTensor a = padded(dtype);
    REQUIRE_FALSE(a.is_contiguous());
    kgb::HostTensor b = a;
    CHECK(hash_of(a) == hash_of(b));
    b.set_complex(5, {a.get_complex(5).real(), a.get_complex(5).imag() + 1.0});  // imaginary part only
    CHECK(hash_of(a) != hash_of(b));
    kgb::HostTensor c = a;
    c.set_complex(11, {a.get_complex(11).real() + 1.0, a.get_complex(11).imag()});  // real part, last element
    CHECK(hash_of(a) != hash_of(c));
  }
}

TEST_CASE("the output hash ignores the padding between rows") {
  kgb::HostTensor a = padded(kgb::DType::C128);
  kgb::HostTensor b = a;
  // Storage element 5 is padding (row 0 holds elements 1..4, row 1 starts
  // at 7): it changes, no logical element does.
  auto* words = reinterpret_cast<double*>(b.storage().data());
  words[2 * 5] = 123.0;
  CHECK(hash_of(a) == hash_of(b));
}
