// Benchmark: the run-to-run spread of a timed median on this host with no
// harness at all. Each evaluation is a fresh process (as `kgb eval` makes a
// fresh runner) that allocates its buffers, flushes the cache before every
// call by reading twice the last-level cache, times 50 calls of a plain
// OpenMP kernel and prints their median. Two kernels:
//   memory:  saxpy on 16M floats (192 MB of traffic per call), like blas/saxpy n_16M;
//   compute: dependent FMA chains on every thread, no memory traffic.
// The spread of five medians, (max - min) / median, is the floor that any
// harness meets on this host: a harness cannot be steadier than the machine.
//   kgb_bench_timing_floor [--runs 5]
// Prints the figures; asserts nothing.
#include <sys/mman.h>
#include <sys/wait.h>
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

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

size_t last_level_cache_bytes() {
  size_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string s;
    if (!(f >> s)) continue;
    size_t v = std::strtoull(s.c_str(), nullptr, 10);
    if (s.back() == 'K') v <<= 10;
    if (s.back() == 'M') v <<= 20;
    largest = std::max(largest, v);
  }
  return std::max<size_t>(largest, 8u << 20);
}

float* huge_page_floats(size_t n) {
  constexpr size_t kHuge = 2u << 20;
  const size_t bytes = (n * sizeof(float) + kHuge - 1) / kHuge * kHuge;
  auto* p = static_cast<float*>(std::aligned_alloc(kHuge, bytes));
  if (p) ::madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

// One evaluation: the median of 50 timed calls, printed on stdout.
int child(const std::string& kind) {
  const size_t n = 16u << 20;
  std::vector<unsigned char> flush(2 * last_level_cache_bytes(), 1);
  float* x = huge_page_floats(n);
  float* y = huge_page_floats(n);
  if (!x || !y) return 2;
#pragma omp parallel for
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000) * 0.001f;
    y[i] = 1.0f;
  }
  std::vector<double> times;
  double sink = 0;
  for (int it = 0; it < 53; ++it) {
    unsigned sum = 0;
    for (size_t at = 0; at < flush.size(); at += 64) sum += flush[at];
    asm volatile("" : : "r"(sum) : "memory");
    const auto t0 = Clock::now();
    if (kind == "memory") {
#pragma omp parallel for
      for (size_t i = 0; i < n; ++i) y[i] = 2.5f * x[i] + y[i];
    } else {
      double total = 0;
#pragma omp parallel reduction(+ : total)
      {
        double a = 1.0;
        for (int i = 0; i < 1500000; ++i) a = a * 1.0000001 + 1e-9;
        total += a;
      }
      sink += total;
    }
    const auto t1 = Clock::now();
    if (it >= 3) times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());  // 3 warm-up calls
  }
  asm volatile("" : : "r"(&sink), "r"(y) : "memory");
  std::printf("%.3f\n", median_of(times));
  return 0;
}

double run_child(const char* self, const std::string& kind) {
  int out[2];
  if (::pipe(out) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    ::execl(self, self, "--child", kind.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buf[256];
  for (ssize_t k; (k = ::read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(k));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? std::strtod(text.c_str(), nullptr) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--child") return child(argv[2]);
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--runs") runs = std::max(2, std::atoi(argv[i + 1]));
  // The CPU platforms' OpenMP setting: workers spin across the flush.
  ::setenv("GOMP_SPINCOUNT", "5000000", 0);
  for (const std::string kind : {"memory", "compute"}) {
    std::vector<double> medians;
    for (int r = 0; r < runs; ++r) {
      const double m = run_child("/proc/self/exe", kind);
      if (m <= 0) {
        std::fprintf(stderr, "the %s evaluation failed\n", kind.c_str());
        return 1;
      }
      medians.push_back(m);
    }
    const double lo = *std::min_element(medians.begin(), medians.end());
    const double hi = *std::max_element(medians.begin(), medians.end());
    std::printf("%-8s medians of %d separate processes (us):", kind.c_str(), runs);
    for (double m : medians) std::printf(" %.1f", m);
    std::printf("; spread %.2f%% of the median\n", 100 * (hi - lo) / median_of(medians));
  }
  return 0;
}
