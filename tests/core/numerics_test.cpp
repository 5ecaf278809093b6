// dtypes, conversions, tensors and layouts, expressions, and the comparison
// rules, without child processes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kgb/case.h"
#include "kgb/dtype.h"
#include "kgb/expr.h"
#include "kgb/random.h"
#include "kgb/tensor.h"
#include "kgb/verdict.h"
#include "kgb/wire.h"
#include <cstring>

TEST_CASE("half conversion rounds to nearest even and keeps specials") {
  CHECK(kgb::float_to_half(1.0f) == 0x3C00);
  CHECK(kgb::float_to_half(-2.0f) == 0xC000);
  CHECK(kgb::float_to_half(65504.0f) == 0x7BFF);
  CHECK(kgb::float_to_half(65520.0f) == 0x7C00);                 // ties to even: overflows to Inf
  CHECK(kgb::float_to_half(1.0f + 1.0f / 2048) == 0x3C00);        // halfway between 1 and the next half: to even
  CHECK(kgb::float_to_half(1.0f + 3.0f / 2048) == 0x3C02);        // halfway, odd below: up
  CHECK(kgb::float_to_half(std::ldexp(1.0f, -24)) == 0x0001);     // smallest subnormal
  CHECK(kgb::float_to_half(std::ldexp(1.0f, -25)) == 0x0000);     // halfway to zero: to even
  CHECK(std::isnan(kgb::half_to_float(kgb::float_to_half(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isinf(kgb::half_to_float(kgb::float_to_half(std::numeric_limits<float>::infinity()))));
  for (uint32_t h = 0; h < 0x7C00; ++h) CHECK_MESSAGE(kgb::float_to_half(kgb::half_to_float(static_cast<uint16_t>(h))) == h, h);
}

TEST_CASE("bfloat16 conversion rounds to nearest even") {
  CHECK(kgb::float_to_bfloat16(1.0f) == 0x3F80);
  CHECK(kgb::bfloat16_to_float(0x3F80) == 1.0f);
  CHECK(kgb::float_to_bfloat16(1.0f + 1.0f / 256) == 0x3F80);     // tie: to even
  CHECK(kgb::float_to_bfloat16(1.0f + 3.0f / 256) == 0x3F82);
  CHECK(std::isnan(kgb::bfloat16_to_float(kgb::float_to_bfloat16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST_CASE("every dtype stores and loads through a host tensor") {
  for (kgb::DType t : kgb::kAllDTypes) {
    CAPTURE(kgb::dtype_name(t));
    auto x = kgb::HostTensor::contiguous(t, {3});
    CHECK(static_cast<int64_t>(x.storage().size()) == 3 * kgb::dtype_size(t));
    x.set(0, 1);
    x.set(1, 0);
    x.set(2, -3);
    CHECK(x.get(0) == 1);
    CHECK(x.get(1) == 0);
    // bool keeps truth; u8 wraps modulo 256 as PyTorch's cast to uint8 does.
    CHECK(x.get(2) == (t == kgb::DType::Bool ? 1 : t == kgb::DType::U8 ? 253 : -3));
    CHECK(kgb::parse_dtype(kgb::dtype_name(t)) == t);
    if (kgb::is_complex(t)) {
      x.set_complex(1, {2, -5});
      CHECK(x.get_complex(1) == std::complex<double>(2, -5));
    }
  }
}

TEST_CASE("strided views address the right storage elements") {
  // 2x3 view, transposed storage (column-major), padded leading dimension 4.
  kgb::HostTensor t(kgb::DType::F32, {2, 3}, {1, 4}, 4 * 2 + 2);
  for (int64_t i = 0; i < 6; ++i) t.set(i, static_cast<double>(i));
  CHECK(t.offset_of_linear(0) == 0);
  CHECK(t.offset_of_linear(1) == 4);  // [0,1]
  CHECK(t.offset_of_linear(3) == 1);  // [1,0]
  CHECK(t.get(5) == 5);
  CHECK_FALSE(t.is_contiguous());
  CHECK(kgb::to_doubles(t) == std::vector<double>{0, 1, 2, 3, 4, 5});
  CHECK(t.unravel(4) == std::vector<int64_t>{1, 1});
}

TEST_CASE("expressions: arithmetic, names, tensor functions and errors") {
  auto t = kgb::HostTensor::contiguous(kgb::DType::F32, {2, 5});
  for (int64_t i = 0; i < 10; ++i) t.set(i, 1.0);
  kgb::ExprContext ctx;
  ctx.variable = [](std::string_view n) -> std::optional<double> {
    if (n == "M") return 8;
    return std::nullopt;
  };
  ctx.tensor = [&](std::string_view n) -> const kgb::HostTensor* { return n == "x" ? &t : nullptr; };
  CHECK(*kgb::evaluate_expression("2 * M * (M + 1) / 4", ctx) == 36);
  CHECK(*kgb::evaluate_expression("-M + numel(x)", ctx) == 2);
  CHECK(*kgb::evaluate_expression("size(x, -1) * rank(x)", ctx) == 10);
  CHECK(*kgb::evaluate_expression("mean(x) - meansq(x)", ctx) == 0);
  CHECK(*kgb::evaluate_expression("max(M, 3) + min(1, 2)", ctx) == 9);
  CHECK_FALSE(kgb::evaluate_expression("M +", ctx).ok());
  CHECK(kgb::evaluate_expression("K * 2", ctx).error().message.find("unknown name 'K'") != std::string::npos);
  CHECK_FALSE(kgb::evaluate_expression("size(x, 5)", ctx).ok());
  CHECK_FALSE(kgb::evaluate_expression("1 / 0", ctx).ok());
}

TEST_CASE("compiler diagnostics from gcc, nvcc and the linker are parsed") {
  auto d = kgb::parse_compiler_diagnostics(
      "candidate.cpp: In function 'int f()':\n"
      "candidate.cpp:12:7: error: 'y' was not declared in this scope\n"
      "   12 |   y = 1;\n"
      "      |   ^\n"
      "candidate.cu(33): error: identifier \"foo\" is undefined\n"
      "/usr/bin/ld: candidate.o: in function `f': undefined reference to `bar'\n"
      "candidate.cpp:3:1: warning: unused variable\n");
  REQUIRE(d.size() == 4);
  CHECK(d[0].file == "candidate.cpp");
  CHECK(d[0].line == 12);
  CHECK(d[0].column == 7);
  CHECK(d[0].severity == "error");
  CHECK(d[0].excerpt.find("y = 1") != std::string::npos);
  CHECK(d[1].file == "candidate.cu");
  CHECK(d[1].line == 33);
  CHECK(d[2].message.find("undefined reference to `bar'") != std::string::npos);
  CHECK(d[3].severity == "warning");
}

TEST_CASE("standard_normal: moments and tails of a real normal") {
  kgb::SplitMix64 g{12345};
  const int n = 2'000'000;
  double sum = 0, sum2 = 0, sum4 = 0;
  int beyond3 = 0, beyond_tail = 0;
  for (int i = 0; i < n; ++i) {
    double x = kgb::standard_normal(g);
    sum += x;
    sum2 += x * x;
    sum4 += x * x * x * x;
    beyond3 += std::fabs(x) > 3;
    beyond_tail += std::fabs(x) > 3.442619855899;  // samples that take the tail path
  }
  double mean = sum / n, var = sum2 / n - mean * mean;
  CHECK(std::fabs(mean) < 5 * std::sqrt(1.0 / n));
  CHECK(var == doctest::Approx(1.0).epsilon(0.005));
  CHECK(sum4 / n == doctest::Approx(3.0).epsilon(0.02));  // kurtosis of a normal
  // P(|x| > 3) = 0.0026998; binomial standard deviation ~ 73 at this n.
  CHECK(std::abs(beyond3 - 0.0026998 * n) < 5 * std::sqrt(0.0027 * n));
  CHECK(beyond_tail > 0);
}

TEST_CASE("OffsetWalker visits the same offsets as offset_of_linear") {
  kgb::HostTensor t(kgb::DType::F32, {3, 4, 5}, {1, 3 * 7, 3}, 3 * 7 * 4, 2);
  kgb::OffsetWalker w(t, 7);
  for (int64_t i = 7; i < t.numel(); ++i, w.next()) REQUIRE(w.offset() == t.offset_of_linear(i));
  CHECK(t.elements_disjoint());
  kgb::HostTensor broadcast(kgb::DType::F32, {4, 8}, {0, 1}, 8);
  CHECK_FALSE(broadcast.elements_disjoint());
  kgb::HostTensor overlapping(kgb::DType::F32, {4, 8}, {4, 1}, 20);
  CHECK_FALSE(overlapping.elements_disjoint());
  CHECK(kgb::HostTensor::contiguous(kgb::DType::F64, {5, 6}).elements_disjoint());
}

TEST_CASE("to_doubles/from_doubles round trip on a strided view over many chunks") {
  kgb::HostTensor t(kgb::DType::F64, {300, 1000}, {1, 301}, 301 * 1000, 1);
  std::vector<double> values(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i) * 0.5;
  kgb::from_doubles(t, values);
  CHECK(kgb::to_doubles(t) == values);
  CHECK(t.get(123456) == 123456 * 0.5);
}

TEST_CASE("wire: a job whose arrays live in the arena, and results copied out of it with bounds checked") {
  kgb::wire::Job job;
  kgb::wire::ParamDesc in, out;
  in.kind = out.kind = kgb::wire::ArgKind::Tensor;
  out.tensor.returned = 1;
  in.tensor.dtype = out.tensor.dtype = static_cast<int32_t>(kgb::DType::F32);
  in.tensor.rank = out.tensor.rank = 1;
  in.tensor.sizes[0] = out.tensor.sizes[0] = 100;
  in.tensor.strides[0] = out.tensor.strides[0] = 1;
  in.tensor.storage_elements = out.tensor.storage_elements = 100;
  in.tensor.role = static_cast<uint8_t>(kgb::wire::Role::Input);
  out.tensor.role = static_cast<uint8_t>(kgb::wire::Role::Output);
  job.params = {in, out};
  std::vector<std::byte> input(400, std::byte{7});
  job.sets = {{std::span<const std::byte>(input), {}}};
  auto layout = kgb::wire::arena_layout(job.params, {{400, 0}});
  CHECK(layout.inputs[0][0] == 0);
  CHECK(layout.outputs_begin == 448);  // 400 rounded up to 64 bytes
  CHECK(layout.outputs_bytes == 448);
  std::vector<std::byte> arena(layout.total());
  std::memcpy(arena.data(), input.data(), input.size());
  job.arena_bytes = layout.total();
  auto encoded = kgb::wire::encode_job_pieces(job);
  CHECK(encoded.pieces.size() == 1);  // metadata only: the array is in the arena
  kgb::wire::Job decoded;
  REQUIRE(kgb::wire::decode_job(encoded.metadata, decoded, arena));
  REQUIRE(decoded.sets.size() == 1);
  CHECK(decoded.sets[0][0].data() == arena.data());
  CHECK(decoded.sets[0][0].size() == 400);
  CHECK_FALSE(kgb::wire::decode_job(encoded.metadata, decoded, std::span<const std::byte>(arena).first(100)));

  kgb::wire::JobResult result;
  result.hashes = {{0, 0}};
  result.outputs = {{{}, std::vector<std::byte>(400, std::byte{9})}};
  result.outputs_in_arena = true;
  std::memset(arena.data() + layout.outputs_begin, 9, 400);
  auto payload = kgb::wire::encode_result(result);
  kgb::wire::JobResult back;
  REQUIRE(kgb::wire::decode_result(payload, back, 1 << 20, arena, layout.outputs_begin));
  CHECK(back.outputs[0][1] == result.outputs[0][1]);
  // A length that runs past the arena is refused, not read.
  kgb::wire::JobResult refused;
  CHECK_FALSE(kgb::wire::decode_result(payload, refused, 1 << 20, std::span<const std::byte>(arena).first(600), layout.outputs_begin));
}

TEST_CASE("large_bytes: zero-filled vectors of the asked size, huge-page advised or not") {
  for (size_t n : {size_t{0}, size_t{1}, size_t{4095}, size_t{3} << 20, (size_t{8} << 20) + 17}) {
    auto v = kgb::wire::large_bytes(n);
    REQUIRE(v.size() == n);
    CHECK(std::all_of(v.begin(), v.end(), [](std::byte b) { return b == std::byte{0}; }));
  }
}

TEST_CASE("decode_result: outputs leave the arena through the given copy function") {
  const std::vector<std::byte> arena(1024, std::byte{7});
  kgb::wire::JobResult result;
  result.hashes = {{0}};
  result.outputs = {{std::vector<std::byte>(100, std::byte{7})}};
  result.outputs_in_arena = true;
  auto payload = kgb::wire::encode_result(result);
  static int copies = 0;
  copies = 0;
  auto counting_copy = [](std::vector<std::byte>& to, std::span<const std::byte> from) {
    ++copies;
    to.assign(from.begin(), from.end());
  };
  kgb::wire::JobResult back;
  REQUIRE(kgb::wire::decode_result(payload, back, 1 << 20, arena, 0, counting_copy));
  CHECK(copies == 1);
  CHECK(back.outputs[0][0] == result.outputs[0][0]);
}
