// kgb_bench_lint: how long `kgb lint` takes on a ~200-line CUDA kernel, the
// stage-1 latency of every CUDA evaluation. Target: median <= 0.5 s.
//
//   kgb_bench_lint [runs]   (default 15)
//
// Prints the cold run (precompiled preludes built into an empty cache), the
// warm median with fork isolation (what `kgb eval` pays), the same in process
// (the fork's cost is the difference) and the warm median without preludes.
// Next to each wall-clock median it prints the median CPU time (this process
// and its lint children, user + system): on a shared, loaded machine the wall
// clock includes waiting for a core, the CPU time does not.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "kgb/lint.h"
#include "kgb/process.h"

namespace {

// A row-wise softmax with a fused scale and mask: templates, shared memory,
// warp shuffles, vector loads, a launcher dispatching on dtype and width.
const char* kKernel = R"CUDA(
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kgb_kernel.h"

namespace {

constexpr int kWarp = 32;
constexpr int kMaxBlock = 1024;

template <typename T>
struct Convert;

template <>
struct Convert<float> {
  __device__ static float load(float v) { return v; }
  __device__ static float store(float v) { return v; }
};

template <>
struct Convert<double> {
  __device__ static double load(double v) { return v; }
  __device__ static double store(double v) { return v; }
};

template <>
struct Convert<__half> {
  __device__ static float load(__half v) { return __half2float(v); }
  __device__ static __half store(float v) { return __float2half_rn(v); }
};

template <>
struct Convert<__nv_bfloat16> {
  __device__ static float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};

template <typename Acc>
__device__ __forceinline__ Acc warp_max(Acc v) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

template <typename Acc>
__device__ __forceinline__ Acc warp_sum(Acc v) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

template <typename Acc>
__device__ Acc block_max(Acc v, Acc* shared) {
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  v = warp_max(v);
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + kWarp - 1) / kWarp;
  v = threadIdx.x < warps ? shared[lane] : -INFINITY;
  if (warp == 0) v = warp_max(v);
  if (threadIdx.x == 0) shared[0] = v;
  __syncthreads();
  const Acc result = shared[0];
  __syncthreads();
  return result;
}

template <typename Acc>
__device__ Acc block_sum(Acc v, Acc* shared) {
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  v = warp_sum(v);
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + kWarp - 1) / kWarp;
  v = threadIdx.x < warps ? shared[lane] : Acc(0);
  if (warp == 0) v = warp_sum(v);
  if (threadIdx.x == 0) shared[0] = v;
  __syncthreads();
  const Acc result = shared[0];
  __syncthreads();
  return result;
}

struct RowLayout {
  int64_t rows;
  int64_t cols;
  int64_t in_row_stride;
  int64_t in_col_stride;
  int64_t out_row_stride;
  int64_t out_col_stride;
};

template <typename T, typename Acc>
__global__ void softmax_rows(const T* __restrict__ in, T* __restrict__ out, RowLayout layout, Acc scale) {
  __shared__ Acc reduce_buffer[kMaxBlock / kWarp];
  for (int64_t row = blockIdx.x; row < layout.rows; row += gridDim.x) {
    const T* src = in + row * layout.in_row_stride;
    T* dst = out + row * layout.out_row_stride;
    Acc local_max = -INFINITY;
    for (int64_t c = threadIdx.x; c < layout.cols; c += blockDim.x)
      local_max = max(local_max, Convert<T>::load(src[c * layout.in_col_stride]) * scale);
    const Acc row_max = block_max(local_max, reduce_buffer);
    Acc local_sum = 0;
    for (int64_t c = threadIdx.x; c < layout.cols; c += blockDim.x)
      local_sum += exp(Convert<T>::load(src[c * layout.in_col_stride]) * scale - row_max);
    const Acc row_sum = block_sum(local_sum, reduce_buffer);
    const Acc inverse = Acc(1) / row_sum;
    for (int64_t c = threadIdx.x; c < layout.cols; c += blockDim.x) {
      const Acc v = exp(Convert<T>::load(src[c * layout.in_col_stride]) * scale - row_max) * inverse;
      dst[c * layout.out_col_stride] = Convert<T>::store(v);
    }
  }
}

__global__ void softmax_rows_vec4(const float4* __restrict__ in, float4* __restrict__ out, int64_t rows,
                                  int64_t cols4, float scale) {
  __shared__ float reduce_buffer[kMaxBlock / kWarp];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float4* src = in + row * cols4;
    float4* dst = out + row * cols4;
    float local_max = -INFINITY;
    for (int64_t c = threadIdx.x; c < cols4; c += blockDim.x) {
      const float4 v = src[c];
      local_max = fmaxf(local_max, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)) * scale);
    }
    const float row_max = block_max(local_max, reduce_buffer);
    float local_sum = 0.0f;
    for (int64_t c = threadIdx.x; c < cols4; c += blockDim.x) {
      const float4 v = src[c];
      local_sum += __expf(v.x * scale - row_max) + __expf(v.y * scale - row_max) + __expf(v.z * scale - row_max) +
                   __expf(v.w * scale - row_max);
    }
    const float inverse = 1.0f / block_sum(local_sum, reduce_buffer);
    for (int64_t c = threadIdx.x; c < cols4; c += blockDim.x) {
      const float4 v = src[c];
      dst[c] = make_float4(__expf(v.x * scale - row_max) * inverse, __expf(v.y * scale - row_max) * inverse,
                           __expf(v.z * scale - row_max) * inverse, __expf(v.w * scale - row_max) * inverse);
    }
  }
}

int pick_block(int64_t cols) {
  int block = kWarp;
  while (block < kMaxBlock && block < cols) block *= 2;
  return block;
}

RowLayout layout_of(const kgb_tensor* in, const kgb_tensor* out, int64_t dim) {
  RowLayout layout{};
  layout.cols = in->sizes[dim];
  layout.rows = layout.cols == 0 ? 0 : kgb_numel(in) / layout.cols;
  layout.in_col_stride = in->strides[dim];
  layout.out_col_stride = out->strides[dim];
  layout.in_row_stride = dim == 0 ? 1 : in->strides[dim - 1];
  layout.out_row_stride = dim == 0 ? 1 : out->strides[dim - 1];
  return layout;
}

template <typename T, typename Acc>
int launch(const kgb_tensor* in, kgb_tensor* out, int64_t dim, double scale, cudaStream_t stream) {
  const RowLayout layout = layout_of(in, out, dim);
  if (layout.rows == 0) return KGB_OK;
  const int block = pick_block(layout.cols);
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const int64_t grid = layout.rows < 8LL * sms ? layout.rows : 8LL * sms;
  softmax_rows<T, Acc><<<static_cast<unsigned>(grid), block, 0, stream>>>(
      static_cast<const T*>(in->data), static_cast<T*>(out->data), layout, static_cast<Acc>(scale));
  return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
}

}  // namespace

extern "C" int kgb_aten_softmax(const kgb_tensor* self, int64_t dim, double scale, kgb_tensor* out,
                                kgb_stream stream) {
  if (self->rank == 0) return KGB_ERR_UNSUPPORTED;
  if (dim < 0) dim += self->rank;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const bool packed = kgb_is_contiguous(self) && kgb_is_contiguous(out) && dim == self->rank - 1 &&
                      self->sizes[dim] % 4 == 0 && self->dtype == KGB_F32;
  if (packed) {
    const int64_t cols4 = self->sizes[dim] / 4;
    const int64_t rows = cols4 == 0 ? 0 : kgb_numel(self) / self->sizes[dim];
    if (rows == 0) return KGB_OK;
    softmax_rows_vec4<<<static_cast<unsigned>(rows < 4096 ? rows : 4096), pick_block(cols4), 0, s>>>(
        static_cast<const float4*>(self->data), static_cast<float4*>(out->data), rows, cols4,
        static_cast<float>(scale));
    return cudaGetLastError() == cudaSuccess ? KGB_OK : KGB_ERR_INVALID;
  }
  switch (self->dtype) {
    case KGB_F32: return launch<float, float>(self, out, dim, scale, s);
    case KGB_F64: return launch<double, double>(self, out, dim, scale, s);
    case KGB_F16: return launch<__half, float>(self, out, dim, scale, s);
    case KGB_BF16: return launch<__nv_bfloat16, float>(self, out, dim, scale, s);
    default: return KGB_ERR_UNSUPPORTED;
  }
}
)CUDA";

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double cpu_seconds() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    getrusage(who, &usage);
    total += usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
  }
  return total;
}

struct Samples {
  std::vector<double> wall, cpu;
};

kgb::Task softmax_task() {
  kgb::Task task;
  task.id = "aten/softmax";
  task.source = "aten";
  task.name = "softmax";
  task.entry = "kgb_aten_softmax";
  task.dtypes = {kgb::DType::F32, kgb::DType::F64, kgb::DType::F16, kgb::DType::BF16};
  kgb::Param self, dim, scale, out;
  self.name = "self";
  dim.name = "dim";
  dim.kind = kgb::ParamKind::Scalar;
  scale.name = "scale";
  scale.kind = kgb::ParamKind::Scalar;
  scale.scalar_type = kgb::ScalarType::Float64;
  out.name = "out";
  out.role = kgb::TensorRole::Output;
  task.params = {self, dim, scale, out};
  return task;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(3, std::atoi(argv[1])) : 15;
  const kgb::Task task = softmax_task();
  kgb::Platform platform;
  platform.name = "cuda-sm90";
  platform.backend = "cuda";
  platform.arch = "sm_90";

  kgb::TempDir cache("kgb-lint-bench");
  kgb::lint::LintRequest request;
  request.source = kKernel;
  request.file_name = "softmax.cu";
  request.language = kgb::lint::Language::Cuda;
  request.task = &task;
  request.platform = &platform;
  request.cache_dir = cache.path();

  int lines = 0;
  for (const char* c = kKernel; *c; ++c) lines += *c == '\n';

  const auto cold = kgb::lint::lint(request);
  if (!cold.infra_error.empty()) {
    std::fprintf(stderr, "lint cannot run here: %s\n", cold.infra_error.c_str());
    return 1;
  }
  if (!cold.clean()) {
    std::fprintf(stderr, "the benchmark kernel does not lint clean:\n");
    for (const auto& d : cold.diagnostics) std::fprintf(stderr, "  %d: %s\n", d.line, d.message.c_str());
    for (const auto& f : cold.findings) std::fprintf(stderr, "  %s %s\n", f.location.c_str(), f.message.c_str());
    return 1;
  }

  const auto measure = [&](const kgb::lint::LintRequest& r, int n) {
    Samples samples;
    for (int i = 0; i < n; ++i) {
      const double cpu_before = cpu_seconds();
      samples.wall.push_back(kgb::lint::lint(r).seconds);
      samples.cpu.push_back(cpu_seconds() - cpu_before);
    }
    return samples;
  };
  const auto forked = measure(request, runs);
  kgb::lint::LintRequest in_process = request;
  in_process.isolation = kgb::lint::Isolation::InProcess;
  const auto local = measure(in_process, runs);
  kgb::lint::LintRequest without_prelude = request;
  without_prelude.use_precompiled_prelude = false;
  const auto plain = measure(without_prelude, std::max(3, runs / 3));

  std::printf("kgb_bench_lint: %d-line CUDA kernel, passes:", lines);
  for (const auto& p : cold.passes) std::printf(" %s", p.c_str());
  std::printf("\n");
  std::printf("  cold (builds the precompiled preludes)   %.3f s\n", cold.seconds);
  std::printf("  warm, forked child (kgb eval's path)     median %.3f s  min %.3f  max %.3f  cpu %.3f s  (n=%zu)\n",
              median(forked.wall), *std::min_element(forked.wall.begin(), forked.wall.end()),
              *std::max_element(forked.wall.begin(), forked.wall.end()), median(forked.cpu), forked.wall.size());
  std::printf("  warm, in process                         median %.3f s  cpu %.3f s  (n=%zu)\n", median(local.wall),
              median(local.cpu), local.wall.size());
  std::printf("  no precompiled prelude, forked           median %.3f s  cpu %.3f s  (n=%zu)\n", median(plain.wall),
              median(plain.cpu), plain.wall.size());
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) > 0) std::printf("  machine load average (1 min)             %.2f\n", load[0]);
  std::printf("  target: median <= 0.5 s -> %s (wall), %s (cpu)\n", median(forked.wall) <= 0.5 ? "met" : "NOT met",
              median(forked.cpu) <= 0.5 ? "met" : "NOT met");
  return 0;
}
