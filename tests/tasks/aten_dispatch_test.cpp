// The generic ATen baseline (aten_dispatch.cpp) on factory functions: their
// out= variants drop the TensorOptions keywords (dtype, layout, device,
// pin_memory), so the dispatcher must pick zeros.out / full.out /
// arange.start_out (step=1 by default) and fill the harness's tensor in place instead of
// allocating a default-dtype tensor on the default device (the CPU, even for a
// CUDA task) and copying it over. An entry's own `dtype` enum is then carried
// by out. Operators whose out= variant keeps `dtype` (sum) keep taking it.
#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "aten_dispatch.h"

namespace {

using kgb::wire::ArgKind;
using kgb::wire::Role;
using kgb::wire::SignatureParam;

SignatureParam tensor_param(const std::string& name, Role role) {
  SignatureParam p;
  p.name = name;
  p.kind = static_cast<uint8_t>(ArgKind::Tensor);
  p.role = static_cast<uint8_t>(role);
  return p;
}

SignatureParam scalar_param(const std::string& name, ArgKind kind, uint8_t scalar_type) {
  SignatureParam p;
  p.name = name;
  p.kind = static_cast<uint8_t>(kind);
  p.scalar_type = scalar_type;
  return p;
}

constexpr uint8_t kAtenScalar = 4, kEnum = 5, kIntList = 6;  // kgb::ScalarType

// A dtype enum as the creation tasks declare it: kgb dtype names and numbers.
SignatureParam dtype_param() {
  SignatureParam p = scalar_param("dtype", ArgKind::OptScalar, kEnum);
  p.optional = 1;
  p.enum_names = {"i64", "f32", "f64"};
  p.enum_numbers = {KGB_I64, KGB_F32, KGB_F64};
  return p;
}

kgb_tensor describe(at::Tensor& t, int32_t dtype) {
  kgb_tensor d{};
  d.data = t.data_ptr();
  d.dtype = dtype;
  d.rank = static_cast<int32_t>(t.dim());
  for (int64_t k = 0; k < t.dim(); ++k) {
    d.sizes[k] = t.size(k);
    d.strides[k] = t.stride(k);
  }
  return d;
}

}  // namespace

TEST_CASE("factory functions run as their out= variant, writing the harness tensor in place" * doctest::test_suite("dispatch")) {
  const at::Device cpu(at::kCPU);
  const std::vector<int64_t> size{3, 5};

  SUBCASE("zeros: the padded view is zeroed, the padding left alone") {
    at::Tensor storage = at::full({3, 7}, 9.0, at::kFloat);
    at::Tensor view = storage.narrow(1, 0, 5);
    kgb_tensor out = describe(view, KGB_F32);
    kgb::wire::EntrySignature entry{"aten/zeros", "aten::zeros", "",
                                    {scalar_param("size", ArgKind::IntList, kIntList), tensor_param("out", Role::Output)}};
    kgb_arg args[2];
    args[0].il = {static_cast<int64_t>(size.size()), size.data()};
    args[1].t = &out;
    const auto r = kgb::aten_dispatch::call_operator(entry, args, 2, cpu);
    REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
    CHECK(r.message == "aten::zeros.out");
    CHECK(view.eq(0).all().item<bool>());
    CHECK(storage.narrow(1, 5, 2).eq(9).all().item<bool>());
  }

  SUBCASE("full with the entry's dtype: out carries it; None works the same") {
    at::Tensor t = at::empty({3, 5}, at::kDouble);
    kgb_tensor out = describe(t, KGB_F64);
    kgb::wire::EntrySignature entry{"aten/full", "aten::full", "",
                                    {scalar_param("size", ArgKind::IntList, kIntList),
                                     scalar_param("fill_value", ArgKind::Scalar, kAtenScalar), dtype_param(),
                                     tensor_param("out", Role::Output)}};
    const int f64 = KGB_F64;
    for (const int* dtype : {&f64, static_cast<const int*>(nullptr)}) {
      kgb_arg args[4];
      args[0].il = {static_cast<int64_t>(size.size()), size.data()};
      args[1].s = kgb_scalar{};
      args[1].s.dtype = KGB_F64;
      args[1].s.v.f = 0.1;  // 0.1 in f64: a float-rounded fill (a copy from f32) would differ
      args[2].opt = dtype;
      args[3].t = &out;
      const auto r = kgb::aten_dispatch::call_operator(entry, args, 4, cpu);
      REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
      CHECK(r.message == "aten::full.out");
      CHECK(t.eq(0.1).all().item<bool>());
    }
  }

  SUBCASE("arange.start_step runs as arange.start_out") {
    at::Tensor t = at::empty({4}, at::kLong);
    kgb_tensor out = describe(t, KGB_I64);
    kgb::wire::EntrySignature entry{"aten/arange.start_step", "aten::arange", "start_step",
                                    {scalar_param("start", ArgKind::Scalar, kAtenScalar),
                                     scalar_param("end", ArgKind::Scalar, kAtenScalar),
                                     scalar_param("step", ArgKind::Scalar, kAtenScalar), tensor_param("out", Role::Output)}};
    kgb_arg args[4];
    for (int k = 0; k < 3; ++k) args[k].s = kgb_scalar{};
    args[0].s.dtype = args[1].s.dtype = args[2].s.dtype = KGB_I64;
    args[0].s.v.i = 2;
    args[1].s.v.i = 14;
    args[2].s.v.i = 3;
    args[3].t = &out;
    const auto r = kgb::aten_dispatch::call_operator(entry, args, 4, cpu);
    REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
    CHECK(r.message == "aten::arange.start_out");
    CHECK(t.equal(at::arange(2, 14, 3, at::kLong)));
  }

  SUBCASE("arange.start runs as arange.start_out, step taking its default") {
    at::Tensor t = at::empty({5}, at::kFloat);
    kgb_tensor out = describe(t, KGB_F32);
    kgb::wire::EntrySignature entry{"aten/arange.start", "aten::arange", "start",
                                    {scalar_param("start", ArgKind::Scalar, kAtenScalar),
                                     scalar_param("end", ArgKind::Scalar, kAtenScalar), dtype_param(),
                                     tensor_param("out", Role::Output)}};
    kgb_arg args[4];
    args[0].s = kgb_scalar{};
    args[1].s = kgb_scalar{};
    args[0].s.dtype = args[1].s.dtype = KGB_F64;
    args[0].s.v.f = -1.5;
    args[1].s.v.f = 3.5;
    args[2].opt = nullptr;
    args[3].t = &out;
    const auto r = kgb::aten_dispatch::call_operator(entry, args, 4, cpu);
    REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
    CHECK(r.message == "aten::arange.start_out");
    CHECK(t.equal(at::arange(-1.5, 3.5, 1.0, at::kFloat)));
  }

  SUBCASE("sum keeps its dtype argument: its out= variant has one") {
    at::Tensor self = at::ones({4, 3}, at::kInt);
    at::Tensor t = at::empty({3}, at::kDouble);
    kgb_tensor in = describe(self, KGB_I32), out = describe(t, KGB_F64);
    kgb::wire::EntrySignature entry{"aten/sum", "aten::sum", "dim_IntList",
                                    {tensor_param("self", Role::Input), scalar_param("dim", ArgKind::IntList, kIntList),
                                     scalar_param("keepdim", ArgKind::Scalar, 2), dtype_param(), tensor_param("out", Role::Output)}};
    const std::vector<int64_t> dim{0};
    const int f64 = KGB_F64;
    kgb_arg args[5];
    args[0].t = &in;
    args[1].il = {1, dim.data()};
    args[2].i = 0;
    args[3].opt = &f64;
    args[4].t = &out;
    const auto r = kgb::aten_dispatch::call_operator(entry, args, 5, cpu);
    REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
    CHECK(r.message == "aten::sum.IntList_out");
    CHECK(t.eq(4).all().item<bool>());
  }
}

// im2col_out writes its out's storage as if it were contiguous (libtorch 1.13
// and 2.x, CPU and CUDA): a padded out must still get the op's values inside
// the view and nothing in the padding.
TEST_CASE("a non-contiguous out of an out= call gets the op's values, its padding untouched" * doctest::test_suite("dispatch")) {
  const at::Device cpu(at::kCPU);
  at::Tensor self = at::arange(1, 2 * 5 * 4 + 1, at::kFloat).reshape({1, 2, 5, 4});
  const at::Tensor expected = at::im2col(self, {3, 3}, {1, 1}, {1, 1}, {1, 1});  // [1, 18, 20]
  at::Tensor storage = at::full({1, 18, 23}, -7.0, at::kFloat);
  at::Tensor view = storage.narrow(2, 0, 20);
  REQUIRE_FALSE(view.is_contiguous());
  kgb_tensor in = describe(self, KGB_F32), out = describe(view, KGB_F32);
  kgb::wire::EntrySignature entry{"aten/im2col", "aten::im2col", "",
                                  {tensor_param("self", Role::Input), scalar_param("kernel_size", ArgKind::IntList, kIntList),
                                   scalar_param("dilation", ArgKind::IntList, kIntList),
                                   scalar_param("padding", ArgKind::IntList, kIntList),
                                   scalar_param("stride", ArgKind::IntList, kIntList), tensor_param("out", Role::Output)}};
  const std::vector<int64_t> three{3, 3}, one{1, 1};
  kgb_arg args[6];
  args[0].t = &in;
  args[1].il = {2, three.data()};
  args[2].il = {2, one.data()};
  args[3].il = {2, one.data()};
  args[4].il = {2, one.data()};
  args[5].t = &out;
  const auto r = kgb::aten_dispatch::call_operator(entry, args, 6, cpu);
  REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
  CHECK(r.message == "aten::im2col.out");
  CHECK(view.equal(expected));
  CHECK(storage.narrow(2, 20, 3).eq(-7).all().item<bool>());
}

TEST_CASE("an out= kernel that ignores output strides writes a non-contiguous output through a temporary" *
          doctest::test_suite("dispatch")) {
  // reflection_pad1d_backward.grad_input writes grad_input as if contiguous
  // in libtorch 1.13; a stepped or transposed grad_input must still get the
  // values the functional call computes, and the gaps stay untouched.
  const at::Device cpu(at::kCPU);
  const std::vector<int64_t> padding{2, 1};
  at::Tensor self = at::zeros({2, 3, 4}, at::kFloat);
  at::Tensor grad = at::arange(2 * 3 * 7, at::kFloat).reshape({2, 3, 7});
  const at::Tensor expected = at::reflection_pad1d_backward(grad, self, padding);
  kgb::wire::EntrySignature entry{"aten/reflection_pad1d_backward", "aten::reflection_pad1d_backward", "",
                                  {tensor_param("grad_output", Role::Input), tensor_param("self", Role::Input),
                                   scalar_param("padding", ArgKind::IntList, kIntList),
                                   tensor_param("grad_input", Role::Output)}};
  SUBCASE("stepped") {
    at::Tensor storage = at::full({2, 3, 8}, -7.0, at::kFloat);
    at::Tensor view = storage.slice(2, 0, 8, 2);
    kgb_tensor g = describe(grad, KGB_F32), s = describe(self, KGB_F32), out = describe(view, KGB_F32);
    kgb_arg args[4];
    args[0].t = &g;
    args[1].t = &s;
    args[2].il = {2, padding.data()};
    args[3].t = &out;
    const auto r = kgb::aten_dispatch::call_operator(entry, args, 4, cpu);
    REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
    CHECK(r.message == "aten::reflection_pad1d_backward.grad_input");
    CHECK(view.equal(expected));
    CHECK(storage.slice(2, 1, 8, 2).eq(-7).all().item<bool>());
  }
  SUBCASE("transposed") {
    at::Tensor storage = at::empty({4, 3, 2}, at::kFloat);
    at::Tensor view = storage.permute({2, 1, 0});
    kgb_tensor g = describe(grad, KGB_F32), s = describe(self, KGB_F32), out = describe(view, KGB_F32);
    kgb_arg args[4];
    args[0].t = &g;
    args[1].t = &s;
    args[2].il = {2, padding.data()};
    args[3].t = &out;
    const auto r = kgb::aten_dispatch::call_operator(entry, args, 4, cpu);
    REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
    CHECK(view.equal(expected));
  }
}

// to.device has a required Device argument and no counterpart in the ABI (one
// device holds every tensor of an entry): the dispatcher passes the device the
// call runs on. With nothing to change ATen returns self, which the view
// output describes; with another dtype the copy lands in the pre-allocated out.
// The dtype enum carries kgb numbers (f16 = 4, c10's Long): libtorch types the
// ScalarType argument as int, so the name must be what reaches ATen.
TEST_CASE("to.device runs on the call's device" * doctest::test_suite("dispatch")) {
  const at::Device cpu(at::kCPU);
  at::Tensor self = (at::arange(0, 12, at::kFloat) * 0.75).to(at::kHalf).reshape({3, 4});
  kgb_tensor in = describe(self, KGB_F16);
  SignatureParam dtype = scalar_param("dtype", ArgKind::Scalar, kEnum);
  dtype.enum_names = {"f16", "i64", "f32"};
  dtype.enum_numbers = {KGB_F16, KGB_I64, KGB_F32};
  kgb::wire::EntrySignature entry{"aten/to.device", "aten::to", "device",
                                  {tensor_param("self", Role::Input), dtype, scalar_param("non_blocking", ArgKind::Scalar, 2),
                                   scalar_param("copy", ArgKind::Scalar, 2), tensor_param("out", Role::View)}};
  SUBCASE("same dtype, copy=False: out becomes self") {
    at::Tensor fresh = at::empty({3, 4}, at::kHalf);
    kgb_tensor out = describe(fresh, KGB_F16);
    kgb_arg args[5];
    args[0].t = &in;
    args[1].i = KGB_F16;
    args[2].i = 0;
    args[3].i = 0;
    args[4].t = &out;
    const auto r = kgb::aten_dispatch::call_operator(entry, args, 5, cpu);
    REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
    CHECK(r.message == "aten::to.device");
    CHECK(out.data == self.data_ptr());
  }
  SUBCASE("another dtype: the converted copy fills out") {
    at::Tensor fresh = at::empty({3, 4}, at::kFloat);
    kgb_tensor out = describe(fresh, KGB_F32);
    kgb_arg args[5];
    args[0].t = &in;
    args[1].i = KGB_F32;
    args[2].i = 0;
    args[3].i = 0;
    args[4].t = &out;
    const auto r = kgb::aten_dispatch::call_operator(entry, args, 5, cpu);
    REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
    CHECK(out.data == fresh.data_ptr());
    CHECK(fresh.equal(self.to(at::kFloat)));
  }
  SUBCASE("f16 -> i64 truncates") {
    at::Tensor fresh = at::empty({3, 4}, at::kLong);
    kgb_tensor out = describe(fresh, KGB_I64);
    kgb_arg args[5];
    args[0].t = &in;
    args[1].i = KGB_I64;
    args[2].i = 0;
    args[3].i = 0;
    args[4].t = &out;
    const auto r = kgb::aten_dispatch::call_operator(entry, args, 5, cpu);
    REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
    CHECK(fresh.equal(self.to(at::kLong)));
  }
}

// _softmax.out writes its out as if it were contiguous (libtorch 1.13 and
// 2.x); the dispatcher hands it a contiguous tensor and copies the values into
// a strided out of ours, leaving the elements between them alone.
TEST_CASE("a strided out of an out= call receives the values, nothing else is written" * doctest::test_suite("dispatch")) {
  const at::Device cpu(at::kCPU);
  const at::Tensor self = at::randn({4, 6}, at::kFloat);
  at::Tensor storage = at::full({4, 12}, 7.0, at::kFloat);
  at::Tensor view = storage.slice(1, 0, 12, 2);  // every other column
  kgb_tensor in = describe(const_cast<at::Tensor&>(self), KGB_F32), out = describe(view, KGB_F32);
  constexpr uint8_t kInt64 = 0, kBool = 2;
  kgb::wire::EntrySignature entry{"aten/_softmax", "aten::_softmax", "",
                                  {tensor_param("self", Role::Input), scalar_param("dim", ArgKind::Scalar, kInt64),
                                   scalar_param("half_to_float", ArgKind::Scalar, kBool), tensor_param("out", Role::Output)}};
  kgb_arg args[4];
  args[0].t = &in;
  args[1].i = 1;
  args[2].i = 0;
  args[3].t = &out;
  const auto r = kgb::aten_dispatch::call_operator(entry, args, 4, cpu);
  REQUIRE_MESSAGE(r.status == KGB_OK, r.message);
  CHECK(r.message == "aten::_softmax.out");
  CHECK(at::allclose(view, at::softmax(self, 1)));
  CHECK(storage.slice(1, 1, 12, 2).eq(7).all().item<bool>());
}
