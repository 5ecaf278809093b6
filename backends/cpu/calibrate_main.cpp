// kgb-cpu-calibrate: measures the host's memory bandwidth and arithmetic
// throughput with every core and prints one JSON object. `kgb calibrate
// --platform cpu-x86_64` runs it (the descriptor's "calibrate" command) and
// stores the result, which load_platform() overlays on the descriptor's
// per-core guesses for the roofline floor and the roofline placement.
//
// Bandwidth: the best of a read-only sum, a copy (bytes read + written) and a
// STREAM triad over buffers several times the last-level cache, every core
// working on its own slice (first touch by the same thread). Arithmetic:
// independent chains of 512-bit vector FMAs (the compiler splits them where
// the host has narrower vectors) on every core, fp32 and fp64. Each figure is
// the best of several repetitions after a warm-up.
//
// "peak" gets 10% headroom over the bandwidth and 5% over the FMA rates (as
// the CUDA calibration): the floor must never reject a kernel that is merely a
// little better than these loops. The figures are for the whole machine
// ("per_core": false). fp16 is the fp32 rate (twice it with AVX512-FP16):
// CPU kernels compute half precision in fp32.
//
// KGB_CALIBRATE_QUICK=1 uses smaller buffers and fewer repetitions (tests).
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  return "unknown cpu";
}

// Last-level cache of this host (sysfs), 32 MiB when unknown.
size_t last_level_cache_bytes() {
  size_t best = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string text;
    if (!(in >> text)) continue;
    size_t value = std::strtoull(text.c_str(), nullptr, 10);
    if (text.find('K') != std::string::npos) value <<= 10;
    if (text.find('M') != std::string::npos) value <<= 20;
    best = std::max(best, value);
  }
  return best ? best : 32u << 20;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

// The best time of `reps` runs of `body` after one warm-up.
template <typename Body>
double best_seconds(int reps, Body&& body) {
  body();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    body();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

struct Bandwidth {
  double read = 0, copy = 0, triad = 0;
};

Bandwidth measure_bandwidth(size_t elements, int reps) {
  // Plain new[]: pages are touched first by the threads that use them below.
  double* a = new double[elements];
  double* b = new double[elements];
  double* c = new double[elements];
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < elements; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
  const double bytes = static_cast<double>(elements) * sizeof(double);
  Bandwidth bw;
  volatile double sink = 0;
  double t = best_seconds(reps, [&] {
    double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (size_t i = 0; i < elements; ++i) sum += a[i];
    sink = sink + sum;
  });
  bw.read = bytes / t / 1e9;
  t = best_seconds(reps, [&] {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < elements; ++i) c[i] = a[i];
  });
  bw.copy = 2 * bytes / t / 1e9;
  t = best_seconds(reps, [&] {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < elements; ++i) a[i] = b[i] + 3.0 * c[i];
  });
  bw.triad = 3 * bytes / t / 1e9;
  delete[] a;
  delete[] b;
  delete[] c;
  return bw;
}

constexpr int kChains = 12;  // enough independent FMAs to cover the latency on two FMA ports

// Chains of vector FMAs on every thread; returns GFLOP/s (an FMA is two).
template <typename T>
double measure_fma(long iterations, int reps) {
  typedef T Vec __attribute__((vector_size(64)));
  constexpr int lanes = 64 / sizeof(T);
  const int threads = omp_get_max_threads();
  std::vector<T> sink(static_cast<size_t>(threads) * 64, 0);
  double t = best_seconds(reps, [&] {
#pragma omp parallel
    {
      const int id = omp_get_thread_num();
      Vec acc[kChains];
      Vec mul, add;
      for (int l = 0; l < lanes; ++l) {
        mul[l] = static_cast<T>(0.999999);
        add[l] = static_cast<T>(1e-7 * (id + 1));
      }
      for (int k = 0; k < kChains; ++k)
        for (int l = 0; l < lanes; ++l) acc[k][l] = static_cast<T>(k + l);
      for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
        for (int k = 0; k < kChains; ++k) acc[k] = acc[k] * mul + add;
      }
      Vec total = acc[0];
      for (int k = 1; k < kChains; ++k) total += acc[k];
      T s = 0;
      for (int l = 0; l < lanes; ++l) s += total[l];
      sink[static_cast<size_t>(id) * 64] = s;
    }
  });
  const double flops = 2.0 * lanes * kChains * static_cast<double>(iterations) * threads;
  if (sink[0] == static_cast<T>(-12345)) std::printf(" ");  // keeps the chains
  return flops / t / 1e9;
}

}  // namespace

int main() {
  const bool quick = std::getenv("KGB_CALIBRATE_QUICK") && std::strcmp(std::getenv("KGB_CALIBRATE_QUICK"), "1") == 0;
  const int threads = omp_get_max_threads();
  const size_t llc = last_level_cache_bytes();
  // Each buffer at least four times the last-level cache (so nothing of it
  // survives between repetitions), 16 MiB at the least.
  const size_t buffer_bytes = std::max<size_t>(quick ? 16u << 20 : 64u << 20, 4 * llc);
  const int reps = quick ? 2 : 5;
  const Bandwidth bw = measure_bandwidth(buffer_bytes / sizeof(double), reps);
  const long iterations = quick ? 200000 : 2000000;
  const double fp32 = measure_fma<float>(iterations, quick ? 2 : 3);
  const double fp64 = measure_fma<double>(iterations, quick ? 2 : 3);
#if defined(__AVX512FP16__)
  const double fp16_factor = 2;
#else
  const double fp16_factor = 1;
#endif
  const double bandwidth = std::max({bw.read, bw.copy, bw.triad});
  std::printf(
      "{\"device\": \"%s, %d threads\", \"threads\": %d, \"buffer_bytes\": %zu, \"last_level_cache_bytes\": %zu,\n"
      " \"measured\": {\"read_gbs\": %.2f, \"copy_gbs\": %.2f, \"triad_gbs\": %.2f, \"fma_fp32_gflops\": %.2f, "
      "\"fma_fp64_gflops\": %.2f},\n"
      " \"peak\": {\"bandwidth_gbs\": %.2f, \"gflops_fp32\": %.2f, \"gflops_fp64\": %.2f, \"gflops_fp16\": %.2f, "
      "\"per_core\": false}}\n",
      escape(cpu_model()).c_str(), threads, threads, buffer_bytes, llc, bw.read, bw.copy, bw.triad, fp32, fp64,
      bandwidth * 1.10, fp32 * 1.05, fp64 * 1.05, fp32 * fp16_factor * 1.05);
  return 0;
}
