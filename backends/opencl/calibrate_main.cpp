// kgb-opencl-calibrate: measures an OpenCL device's memory bandwidth and
// arithmetic throughput and prints one JSON object. `kgb calibrate --platform
// opencl-pocl` (or opencl-nvidia) runs it with the platform's environment, so
// it measures the device the runner would use (KGB_OPENCL_VENDOR,
// KGB_OPENCL_DEVICE).
//
// Bandwidth: the best of a read-only sum, a copy (bytes read + written) and a
// triad over buffers far larger than the device's cache. Arithmetic:
// independent chains of float8 / double8 multiply-adds on a full range of
// work-items. Each figure is the best of several repetitions after a warm-up,
// timed with the commands' profiling events.
//
// "peak" gets the headroom of the other calibrations (10% bandwidth, 5%
// arithmetic). Every figure is given, on CPU and GPU devices alike: OpenCL C
// reaches no tensor cores, so the FMA loops measure the units a kernel can
// use, and fp16 is the fp32 rate (kernels convert half data to float). (CUDA
// keeps its descriptor's fp64/fp16 figures: CUDA kernels do reach tensor cores.)
//
// KGB_CALIBRATE_QUICK=1 uses smaller buffers and fewer repetitions (tests).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device_select.h"

namespace {

const char* kSource = R"CLC(
__kernel void read_sum(__global const float4* in, __global float* sink) {
  float4 v = in[get_global_id(0)];
  float s = v.x + v.y + v.z + v.w;
  if (s == 1234.5f) sink[0] = s;
}
__kernel void copy(__global const float4* in, __global float4* out) {
  size_t i = get_global_id(0);
  out[i] = in[i];
}
__kernel void triad(__global float4* a, __global const float4* b, __global const float4* c) {
  size_t i = get_global_id(0);
  a[i] = b[i] + 3.0f * c[i];
}
#define CHAINS 8
__kernel void fma_f32(__global float* sink, int iterations, float b, float c) {
  float8 a[CHAINS];
  for (int k = 0; k < CHAINS; ++k) a[k] = (float8)(get_global_id(0) * 1e-6f + k);
  for (int i = 0; i < iterations; ++i)
    for (int k = 0; k < CHAINS; ++k) a[k] = mad(a[k], (float8)(b), (float8)(c));
  float8 t = a[0];
  for (int k = 1; k < CHAINS; ++k) t += a[k];
  float s = t.s0 + t.s1 + t.s2 + t.s3 + t.s4 + t.s5 + t.s6 + t.s7;
  if (s == -1.0f) sink[0] = s;
}
)CLC";

const char* kSourceF64 = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CHAINS 8
__kernel void fma_f64(__global double* sink, int iterations, double b, double c) {
  double8 a[CHAINS];
  for (int k = 0; k < CHAINS; ++k) a[k] = (double8)(get_global_id(0) * 1e-6 + k);
  for (int i = 0; i < iterations; ++i)
    for (int k = 0; k < CHAINS; ++k) a[k] = mad(a[k], (double8)(b), (double8)(c));
  double8 t = a[0];
  for (int k = 1; k < CHAINS; ++k) t += a[k];
  double s = t.s0 + t.s1 + t.s2 + t.s3 + t.s4 + t.s5 + t.s6 + t.s7;
  if (s == -1.0) sink[0] = s;
}
)CLC";

constexpr int kChains = 8, kLanes = 8;

[[noreturn]] void fail(const std::string& what, cl_int err) {
  std::printf("{\"error\": \"%s failed (OpenCL error %d)\"}\n", what.c_str(), err);
  std::exit(1);
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

struct Device {
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  cl_command_queue queue = nullptr;

  cl_program build(const char* source) {
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
    if (!p) fail("clCreateProgramWithSource", err);
    err = clBuildProgram(p, 1, &device, "-cl-mad-enable", nullptr, nullptr);
    if (err != CL_SUCCESS) {
      size_t size = 0;
      clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      std::fprintf(stderr, "%s\n", log.c_str());
      fail("clBuildProgram", err);
    }
    return p;
  }

  cl_kernel kernel(cl_program p, const char* name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, name, &err);
    if (!k) fail(std::string("clCreateKernel ") + name, err);
    return k;
  }

  // Device seconds of one run of `k` over `global` work-items.
  double run(cl_kernel k, size_t global) {
    cl_event e = nullptr;
    cl_int err = clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, nullptr, 0, nullptr, &e);
    if (err != CL_SUCCESS) fail("clEnqueueNDRangeKernel", err);
    clFinish(queue);
    cl_ulong start = 0, end = 0;
    clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
    clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    clReleaseEvent(e);
    return end > start ? static_cast<double>(end - start) * 1e-9 : 1e-9;
  }

  double best(cl_kernel k, size_t global, int reps) {
    run(k, global);
    double t = 1e30;
    for (int r = 0; r < reps; ++r) t = std::min(t, run(k, global));
    return t;
  }
};

template <typename T>
cl_mem buffer(cl_context context, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  if (!m) fail("clCreateBuffer", err);
  return m;
}

}  // namespace

int main() {
  const char* quick_env = std::getenv("KGB_CALIBRATE_QUICK");
  const bool quick = quick_env && std::strcmp(quick_env, "1") == 0;
  auto choice = kgb::opencl::choose_device_from_environment();
  if (!choice.device) {
    std::printf("{\"error\": \"%s\"}\n", escape(choice.error).c_str());
    return 1;
  }
  Device d;
  d.device = choice.device;
  cl_int err = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(choice.platform), 0};
  d.context = clCreateContext(props, 1, &d.device, nullptr, nullptr, &err);
  if (!d.context) fail("clCreateContext", err);
  d.queue = clCreateCommandQueue(d.context, d.device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (!d.queue) fail("clCreateCommandQueue", err);

  cl_device_type type = 0;
  cl_uint units = 1;
  cl_ulong cache = 0, max_alloc = 0;
  cl_device_fp_config fp64 = 0;
  clGetDeviceInfo(d.device, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  clGetDeviceInfo(d.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
  clGetDeviceInfo(d.device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, nullptr);
  clGetDeviceInfo(d.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, nullptr);
  clGetDeviceInfo(d.device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, nullptr);
  const bool cpu = (type & CL_DEVICE_TYPE_CPU) != 0;

  // Buffers at least four times the device's cache (and 32 MiB, 16 quick).
  size_t bytes = std::max<size_t>(quick ? 16u << 20 : 128u << 20, 4 * static_cast<size_t>(cache));
  if (max_alloc > 0) bytes = std::min<size_t>(bytes, static_cast<size_t>(max_alloc));
  bytes = bytes / 64 * 64;
  const cl_ulong n4 = bytes / 16;
  cl_mem a = buffer<float>(d.context, bytes), b = buffer<float>(d.context, bytes), c = buffer<float>(d.context, bytes);
  cl_mem sink = buffer<float>(d.context, 64);
  const float zero = 0;
  for (cl_mem m : {a, b, c}) clEnqueueFillBuffer(d.queue, m, &zero, sizeof zero, 0, bytes, 0, nullptr, nullptr);
  clFinish(d.queue);

  cl_program program = d.build(kSource);
  const int reps = quick ? 2 : 5;
  // One float4 per work-item: consecutive items touch consecutive memory,
  // which is what both a GPU and PoCL's work-group loops stream best (a
  // grid-stride loop per item measured a fifth of the bandwidth on PoCL).
  const size_t stream_items = static_cast<size_t>(n4);

  cl_kernel read = d.kernel(program, "read_sum");
  clSetKernelArg(read, 0, sizeof(cl_mem), &a);
  clSetKernelArg(read, 1, sizeof(cl_mem), &sink);
  const double read_gbs = static_cast<double>(bytes) / d.best(read, stream_items, reps) / 1e9;

  cl_kernel copy = d.kernel(program, "copy");
  clSetKernelArg(copy, 0, sizeof(cl_mem), &a);
  clSetKernelArg(copy, 1, sizeof(cl_mem), &b);
  const double copy_gbs = 2.0 * static_cast<double>(bytes) / d.best(copy, stream_items, reps) / 1e9;

  cl_kernel triad = d.kernel(program, "triad");
  clSetKernelArg(triad, 0, sizeof(cl_mem), &a);
  clSetKernelArg(triad, 1, sizeof(cl_mem), &b);
  clSetKernelArg(triad, 2, sizeof(cl_mem), &c);
  const double triad_gbs = 3.0 * static_cast<double>(bytes) / d.best(triad, stream_items, reps) / 1e9;

  // Arithmetic: a few work-groups' worth of items per compute unit.
  const size_t fma_items = static_cast<size_t>(units) * (cpu ? 256 : 16384);
  const int iterations = quick ? 256 : (cpu ? 2048 : 8192);
  cl_kernel f32 = d.kernel(program, "fma_f32");
  const float fb = 0.999999f, fc = 1e-7f;
  clSetKernelArg(f32, 0, sizeof(cl_mem), &sink);
  clSetKernelArg(f32, 1, sizeof iterations, &iterations);
  clSetKernelArg(f32, 2, sizeof fb, &fb);
  clSetKernelArg(f32, 3, sizeof fc, &fc);
  const double flops = 2.0 * kLanes * kChains * iterations * static_cast<double>(fma_items);
  const double fp32 = flops / d.best(f32, fma_items, quick ? 1 : 3) / 1e9;
  double fp64_rate = 0;
  if (fp64) {
    cl_program p64 = d.build(kSourceF64);
    cl_kernel f64 = d.kernel(p64, "fma_f64");
    const double db = 0.999999, dc = 1e-7;
    clSetKernelArg(f64, 0, sizeof(cl_mem), &sink);
    clSetKernelArg(f64, 1, sizeof iterations, &iterations);
    clSetKernelArg(f64, 2, sizeof db, &db);
    clSetKernelArg(f64, 3, sizeof dc, &dc);
    fp64_rate = flops / d.best(f64, fma_items, quick ? 1 : 3) / 1e9;
    clReleaseKernel(f64);
    clReleaseProgram(p64);
  }
  const double bandwidth = std::max({read_gbs, copy_gbs, triad_gbs});
  std::printf("{\"device\": \"%s\", \"compute_units\": %u, \"device_type\": \"%s\", \"buffer_bytes\": %zu,\n"
              " \"measured\": {\"read_gbs\": %.2f, \"copy_gbs\": %.2f, \"triad_gbs\": %.2f, \"fma_fp32_gflops\": %.2f, "
              "\"fma_fp64_gflops\": %.2f},\n",
              escape(choice.description).c_str(), units, cpu ? "cpu" : "gpu", bytes, read_gbs, copy_gbs, triad_gbs, fp32,
              fp64_rate);
  // Every figure is written, so that no descriptor placeholder is left beside
  // measured ones. A device without doubles gets half the fp32 rate for
  // fp64. fp16 gets the fp32 rate: OpenCL C kernels compute 16-bit data in
  // float (cl_khr_fp16 arithmetic is optional, and no tensor cores are
  // reachable from OpenCL C), so the fp32 FMA rate is their ceiling.
  std::printf(" \"peak\": {\"bandwidth_gbs\": %.2f, \"gflops_fp32\": %.2f, \"gflops_fp64\": %.2f, \"gflops_fp16\": %.2f, "
              "\"per_core\": false}}\n",
              bandwidth * 1.10, fp32 * 1.05, (fp64_rate > 0 ? fp64_rate : fp32 / 2) * 1.05, fp32 * 1.05);
  for (cl_kernel k : {read, copy, triad, f32}) clReleaseKernel(k);
  clReleaseProgram(program);
  for (cl_mem m : {a, b, c, sink}) clReleaseMemObject(m);
  clReleaseCommandQueue(d.queue);
  clReleaseContext(d.context);
  return 0;
}
