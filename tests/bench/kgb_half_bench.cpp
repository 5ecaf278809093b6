// Benchmark: the cost per element of kgb_half.h's conversions in the loops
// CPU solutions write, contiguous and strided, on one thread, compiled as
// cpu-x86_64 compiles candidates (-O3 -march=native). Next to them: the
// harness's scalar codecs (kgb/dtype.h) and, where the CPU has F16C, the
// hardware f16 conversions, the floor for f16.
//   kgb_bench_kgb_half [--elements 4194304] [--repeats 15]
// Prints the minimum over the repeats (the least disturbed run) in ns per
// element; asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "kgb/dtype.h"
#include "kgb/random.h"
#include "kgb_half.h"

#if defined(__F16C__) && defined(__AVX2__)
#include <immintrin.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

struct Buffers {
  std::vector<float> floats, floats_out;
  std::vector<uint16_t> halves;
  std::vector<uint8_t> bytes;
};

// The minimum over `repeats` runs of `body`, in ns per element.
double ns_per_element(int repeats, size_t elements, const std::function<void()>& body) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    body();
    best = std::min(best, std::chrono::duration<double, std::nano>(Clock::now() - start).count());
  }
  return best / static_cast<double>(elements);
}

// Keeps the compiler from dropping a loop whose results nothing reads.
template <typename T>
void keep(const std::vector<T>& v) {
  asm volatile("" : : "r"(v.data()) : "memory");
}

}  // namespace

int main(int argc, char** argv) {
  size_t elements = size_t{1} << 22;
  int repeats = 15;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--elements") == 0) elements = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::atoi(argv[i + 1]);
  }
  const size_t stride = 3, strided = elements / stride;
  Buffers b;
  b.floats.resize(elements);
  b.floats_out.resize(elements);
  b.halves.resize(elements);
  b.bytes.resize(elements);
  kgb::SplitMix64 g{1};
  for (auto& f : b.floats) f = static_cast<float>(kgb::standard_normal(g) * 8.0);
  for (size_t i = 0; i < elements; ++i) b.halves[i] = kgb_float_to_f16(b.floats[i]);
  for (size_t i = 0; i < elements; ++i) b.bytes[i] = kgb_float_to_f8e4m3fn_sat(b.floats[i]);

  // Raw pointers, as the solutions' loops have: a uint8_t store through a
  // vector could alias the vector's own pointer and keep the loop scalar.
  const float* const in = b.floats.data();
  float* const out = b.floats_out.data();
  uint16_t* const h = b.halves.data();
  uint8_t* const q = b.bytes.data();

  struct Row {
    std::string name;
    double contiguous, strided;
  };
  std::vector<Row> rows;
  // one(i, step) converts element i * step. The loops copy what they use into
  // locals: a uint8_t store may alias any memory, the closures' included,
  // which would make the compiler reload the bounds and keep the loop scalar.
  const auto add = [&](const std::string& name, auto one) {
    const double c = ns_per_element(repeats, elements, [one, n = elements] {
      const auto f = one;
      const size_t count = n;
      for (size_t i = 0; i < count; ++i) f(i, 1);
    });
    const double s = ns_per_element(repeats, strided, [one, n = strided, step = stride] {
      const auto f = one;
      const size_t count = n, st = step;
      for (size_t i = 0; i < count; ++i) f(i, st);
    });
    rows.push_back({name, c, s});
  };

  add("kgb_f16_to_float", [=](size_t i, size_t s) { out[i] = kgb_f16_to_float(h[i * s]); });
  add("kgb_float_to_f16", [=](size_t i, size_t s) { h[i * s] = kgb_float_to_f16(in[i]); });
  add("kgb_bf16_to_float", [=](size_t i, size_t s) { out[i] = kgb_bf16_to_float(h[i * s]); });
  add("kgb_float_to_bf16", [=](size_t i, size_t s) { h[i * s] = kgb_float_to_bf16(in[i]); });
  add("kgb_f8e4m3fn_to_float", [=](size_t i, size_t s) { out[i] = kgb_f8e4m3fn_to_float(q[i * s]); });
  add("kgb_float_to_f8e4m3fn_sat", [=](size_t i, size_t s) { q[i * s] = kgb_float_to_f8e4m3fn_sat(in[i]); });
  add("kgb_f8e5m2_to_float", [=](size_t i, size_t s) { out[i] = kgb_f8e5m2_to_float(q[i * s]); });
  add("kgb_float_to_f8e5m2", [=](size_t i, size_t s) { q[i * s] = kgb_float_to_f8e5m2(in[i]); });
  add("kgb::half_to_float (harness)", [=](size_t i, size_t s) { out[i] = kgb::half_to_float(h[i * s]); });
  add("kgb::float_to_half (harness)", [=](size_t i, size_t s) { h[i * s] = kgb::float_to_half(in[i]); });
#if defined(__F16C__) && defined(__AVX2__)
  rows.push_back({"F16C _mm256_cvtph_ps", ns_per_element(repeats, elements, [&] {
                    for (size_t i = 0; i + 8 <= elements; i += 8)
                      _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                                             reinterpret_cast<const __m128i*>(h + i))));
                  }), 0});
  rows.push_back({"F16C _mm256_cvtps_ph", ns_per_element(repeats, elements, [&] {
                    for (size_t i = 0; i + 8 <= elements; i += 8)
                      _mm_storeu_si128(reinterpret_cast<__m128i*>(h + i),
                                       _mm256_cvtps_ph(_mm256_loadu_ps(&in[i]), _MM_FROUND_TO_NEAREST_INT));
                  }), 0});
#endif
  keep(b.floats_out);
  keep(b.halves);
  keep(b.bytes);

  std::printf("%zu elements, stride %zu for the strided column, minimum of %d runs, one thread\n", elements, stride,
              repeats);
  std::printf("%-32s %14s %14s\n", "conversion", "contiguous ns", "strided ns");
  for (const auto& r : rows) {
    if (r.strided > 0)
      std::printf("%-32s %14.3f %14.3f\n", r.name.c_str(), r.contiguous, r.strided);
    else
      std::printf("%-32s %14.3f %14s\n", r.name.c_str(), r.contiguous, "-");
  }
  return 0;
}
