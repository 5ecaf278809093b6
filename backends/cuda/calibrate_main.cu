// kgb-cuda-calibrate: measures the device's memory bandwidth and arithmetic
// throughput and prints one JSON object. `kgb calibrate --platform P` runs it
// (the descriptor's "calibrate" command) and stores the result under the
// build root, where load_platform() overlays "peak" on the descriptor's
// figures for the roofline floor.
//
// Bandwidth: the best of a device-to-device copy (bytes read + written), a
// read-only stream and a write-only stream over buffers far larger than L2.
// Arithmetic: independent FMA chains on every thread of a full grid, in fp32,
// fp64 and half2. Each figure is the best of several timed repetitions after
// a warm-up, timed with CUDA events. Clocks and settings are left as found.
//
// "peak" gets 10% headroom over the measured bandwidth and 5% over the fp32
// FMA rate: the floor must never reject a kernel that is merely a little
// better than these loops. fp64 and fp16 stay out of "peak": the descriptor
// holds the tensor-core rates for them, which plain FMA loops do not reach.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

#define KGB_CHECK(call)                                                                                   \
  do {                                                                                                    \
    cudaError_t e_ = (call);                                                                              \
    if (e_ != cudaSuccess) {                                                                              \
      std::printf("{\"error\": \"%s failed: %s\"}\n", #call, cudaGetErrorString(e_));                     \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

__global__ void read_kernel(const float4* __restrict__ in, float* __restrict__ sink, size_t n) {
  float acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1234.5f) sink[0] = acc;  // never true for the data used; keeps the loads
}

__global__ void write_kernel(float4* __restrict__ out, size_t n, float value) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = make_float4(value, value, value, value);
}

constexpr int kChains = 8;

template <typename T>
__global__ void fma_kernel(T* sink, int iterations, T b, T c) {
  T a[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) a[k] = static_cast<T>(threadIdx.x + k);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) a[k] = a[k] * b + c;
  }
  T s = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) s += a[k];
  if (s == static_cast<T>(-1)) sink[0] = s;
}

__global__ void hfma2_kernel(__half2* sink, int iterations, __half2 b, __half2 c) {
  __half2 a[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) a[k] = __floats2half2_rn(threadIdx.x * 1e-3f + k, k);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) a[k] = __hfma2(a[k], b, c);
  }
  __half2 s = a[0];
#pragma unroll
  for (int k = 1; k < kChains; ++k) s = __hadd2(s, a[k]);
  if (__low2float(s) == -1.0f) sink[0] = s;
}

// Best time in milliseconds of `reps` runs of `launch` after two warm-ups.
template <typename Launch>
float best_ms(Launch launch, int reps) {
  cudaEvent_t a, b;
  KGB_CHECK(cudaEventCreate(&a));
  KGB_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) launch();
  KGB_CHECK(cudaDeviceSynchronize());
  float best = 1e30f;
  for (int i = 0; i < reps; ++i) {
    KGB_CHECK(cudaEventRecord(a));
    launch();
    KGB_CHECK(cudaEventRecord(b));
    KGB_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    KGB_CHECK(cudaEventElapsedTime(&ms, a, b));
    best = std::min(best, ms);
  }
  KGB_CHECK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best;
}

std::string json_escape(const char* s) {
  std::string out;
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') out += '\\';
    if (static_cast<unsigned char>(*s) >= 0x20) out += *s;
  }
  return out;
}

}  // namespace

int main() {
  int ordinal = 0;
  if (const char* v = std::getenv("KGB_CUDA_DEVICE"); v && *v) ordinal = std::atoi(v);
  KGB_CHECK(cudaSetDevice(ordinal));
  cudaDeviceProp prop{};
  KGB_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  int sms = 0, l2 = 0;
  KGB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ordinal));
  KGB_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ordinal));

  // Buffers of 1 GiB each (at least 16x L2), less on small devices.
  size_t bytes = std::min<size_t>(1ull << 30, prop.totalGlobalMem / 8);
  bytes = std::max<size_t>(bytes, 16ull * static_cast<size_t>(l2));
  bytes &= ~static_cast<size_t>(15);
  const size_t n4 = bytes / sizeof(float4);
  float4 *in = nullptr, *out = nullptr;
  float* sink = nullptr;
  KGB_CHECK(cudaMalloc(&in, bytes));
  KGB_CHECK(cudaMalloc(&out, bytes));
  KGB_CHECK(cudaMalloc(&sink, 64));
  KGB_CHECK(cudaMemset(in, 0, bytes));
  const int threads = 256;
  const int blocks = sms * 8;
  const int reps = 10;
  float copy_ms = best_ms([&] { copy_kernel<<<blocks, threads>>>(in, out, n4); }, reps);
  float read_ms = best_ms([&] { read_kernel<<<blocks, threads>>>(in, sink, n4); }, reps);
  float write_ms = best_ms([&] { write_kernel<<<blocks, threads>>>(out, n4, 1.0f); }, reps);
  const double gb = static_cast<double>(bytes) / 1e9;
  const double copy_gbs = 2 * gb / (copy_ms / 1e3), read_gbs = gb / (read_ms / 1e3), write_gbs = gb / (write_ms / 1e3);

  // FMA throughput: a full grid of resident threads, long enough to dwarf the launch.
  const int fma_blocks = sms * 16, fma_threads = 256, iterations = 4096;
  const double fmas = static_cast<double>(fma_blocks) * fma_threads * iterations * kChains;
  float f32_ms = best_ms([&] { fma_kernel<float><<<fma_blocks, fma_threads>>>(sink, iterations, 0.999f, 0.001f); }, 5);
  double* dsink = reinterpret_cast<double*>(sink);
  float f64_ms = best_ms([&] { fma_kernel<double><<<fma_blocks, fma_threads>>>(dsink, iterations / 4, 0.999, 0.001); }, 5);
  __half2* hsink = reinterpret_cast<__half2*>(sink);
  float f16_ms = best_ms([&] {
    hfma2_kernel<<<fma_blocks, fma_threads>>>(hsink, iterations, __floats2half2_rn(0.999f, 0.999f), __floats2half2_rn(0.001f, 0.001f));
  }, 5);
  const double f32_gflops = 2 * fmas / (f32_ms / 1e3) / 1e9;
  const double f64_gflops = 2 * (fmas / 4) / (f64_ms / 1e3) / 1e9;
  const double f16_gflops = 4 * fmas / (f16_ms / 1e3) / 1e9;  // two lanes per half2 FMA
  cudaFree(in);
  cudaFree(out);
  cudaFree(sink);

  const double best_bandwidth = std::max({copy_gbs, read_gbs, write_gbs});
  std::printf("{\"device\": \"%s\", \"compute_capability\": \"%d.%d\", \"sms\": %d, \"buffer_bytes\": %zu,\n"
              " \"measured\": {\"copy_gbs\": %.1f, \"read_gbs\": %.1f, \"write_gbs\": %.1f, \"fma_gflops_fp32\": %.1f, "
              "\"fma_gflops_fp64\": %.1f, \"hfma2_gflops_fp16\": %.1f},\n"
              " \"peak\": {\"bandwidth_gbs\": %.1f, \"gflops_fp32\": %.1f},\n"
              " \"headroom\": {\"bandwidth\": 1.10, \"gflops_fp32\": 1.05}}\n",
              json_escape(prop.name).c_str(), prop.major, prop.minor, sms, bytes, copy_gbs, read_gbs, write_gbs, f32_gflops,
              f64_gflops, f16_gflops, best_bandwidth * 1.10, f32_gflops * 1.05);
  return 0;
}
