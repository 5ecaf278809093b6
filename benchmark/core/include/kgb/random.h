// Random numbers for test inputs: a small fast generator and a fast normal
// sampler. Inputs of performance cases run to hundreds of millions of values
// per evaluation, so std::mt19937_64 + std::normal_distribution (a log and a
// square root per pair) would dominate the harness's own time.
#pragma once

#include <cstdint>

namespace kgb {

// SplitMix64: passes the usual statistical batteries, one multiply-xorshift
// chain per value; seeds from any 64-bit number.
struct SplitMix64 {
  using result_type = uint64_t;
  uint64_t state = 0;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~uint64_t{0}; }
  result_type operator()() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// Uniform in (0, 1): never exactly 0, so its log is finite.
inline double uniform_open01(SplitMix64& g) { return (static_cast<double>(g() >> 11) + 0.5) * 0x1.0p-53; }

// Standard normal by the ziggurat method (Marsaglia and Tsang, 2000; 128
// layers). The layer index and the candidate value come from different bits
// of one draw, which avoids the original's correlation between the two.
double standard_normal(SplitMix64& g);

}  // namespace kgb
