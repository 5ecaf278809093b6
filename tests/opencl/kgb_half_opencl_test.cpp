// KGB_CL_HALF_SOURCE, kgb_half.h's OpenCL C text, built as OpenCL C 1.2 by
// PoCL and run: every decoder on every bit pattern and every encoder on the
// rounding probes of each format and a million random floats, compared with
// the harness's codecs (kgb/dtype.h) as the CPU test does.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "device_select.h"
#include "half_probes.h"
#include "kgb_half.h"

namespace {

const char kKernels[] = R"CLC(
__kernel void decode16(__global const ushort* in, __global float* f16, __global float* bf16) {
  size_t i = get_global_id(0);
  f16[i] = kgb_f16_to_float(in[i]);
  bf16[i] = kgb_bf16_to_float(in[i]);
}
__kernel void decode8(__global const uchar* in, __global float* e4m3fn, __global float* e5m2) {
  size_t i = get_global_id(0);
  e4m3fn[i] = kgb_f8e4m3fn_to_float(in[i]);
  e5m2[i] = kgb_f8e5m2_to_float(in[i]);
}
__kernel void encode(__global const float* in, __global ushort* f16, __global ushort* bf16, __global uchar* e4m3fn,
                     __global uchar* e4m3fn_sat, __global uchar* e5m2, __global uchar* e5m2_sat) {
  size_t i = get_global_id(0);
  float f = in[i];
  f16[i] = kgb_float_to_f16(f);
  bf16[i] = kgb_float_to_bf16(f);
  e4m3fn[i] = kgb_float_to_f8e4m3fn(f);
  e4m3fn_sat[i] = kgb_float_to_f8e4m3fn_sat(f);
  e5m2[i] = kgb_float_to_f8e5m2(f);
  e5m2_sat[i] = kgb_float_to_f8e5m2_sat(f);
}
)CLC";

// A PoCL context with the helpers and the test kernels built, released at exit.
struct Device {
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  std::string build_log;

  Device() {
    auto choice = kgb::opencl::choose_device("pocl", 0);
    REQUIRE_MESSAGE(choice.device != nullptr, "no PoCL device: " << choice.error);
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &choice.device, nullptr, nullptr, &err);
    REQUIRE(err == CL_SUCCESS);
    queue = clCreateCommandQueue(context, choice.device, 0, &err);
    REQUIRE(err == CL_SUCCESS);
    const std::string source = std::string(KGB_CL_HALF_SOURCE) + kKernels;
    const char* text = source.c_str();
    program = clCreateProgramWithSource(context, 1, &text, nullptr, &err);
    REQUIRE(err == CL_SUCCESS);
    err = clBuildProgram(program, 1, &choice.device, "-cl-std=CL1.2", nullptr, nullptr);
    size_t n = 0;
    clGetProgramBuildInfo(program, choice.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    build_log.resize(n);
    clGetProgramBuildInfo(program, choice.device, CL_PROGRAM_BUILD_LOG, n, build_log.data(), nullptr);
    REQUIRE_MESSAGE(err == CL_SUCCESS, "build failed:\n" << build_log);
  }
  ~Device() {
    if (program) clReleaseProgram(program);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }

  // Runs `kernel` over `count` items: argument 0 is `input`, the others are
  // the outputs, read back when it is done.
  template <typename In>
  void run(const char* kernel, const std::vector<In>& input, std::vector<std::vector<std::byte>*> outputs,
           std::vector<size_t> element_sizes) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program, kernel, &err);
    REQUIRE(err == CL_SUCCESS);
    const size_t count = input.size();
    std::vector<cl_mem> buffers;
    buffers.push_back(clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, count * sizeof(In),
                                     const_cast<In*>(input.data()), &err));
    REQUIRE(err == CL_SUCCESS);
    for (size_t i = 0; i < outputs.size(); ++i) {
      outputs[i]->resize(count * element_sizes[i]);
      buffers.push_back(clCreateBuffer(context, CL_MEM_WRITE_ONLY, outputs[i]->size(), nullptr, &err));
      REQUIRE(err == CL_SUCCESS);
    }
    for (cl_uint a = 0; a < buffers.size(); ++a) REQUIRE(clSetKernelArg(k, a, sizeof(cl_mem), &buffers[a]) == CL_SUCCESS);
    REQUIRE(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &count, nullptr, 0, nullptr, nullptr) == CL_SUCCESS);
    for (size_t i = 0; i < outputs.size(); ++i)
      REQUIRE(clEnqueueReadBuffer(queue, buffers[i + 1], CL_TRUE, 0, outputs[i]->size(), outputs[i]->data(), 0, nullptr,
                                  nullptr) == CL_SUCCESS);
    for (cl_mem b : buffers) clReleaseMemObject(b);
    clReleaseKernel(k);
  }
};

Device& device() {
  static Device d;
  return d;
}

template <typename T>
T element(const std::vector<std::byte>& bytes, size_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

TEST_CASE("OpenCL C helpers: every bit pattern decodes as the harness decodes it") {
  std::vector<uint16_t> patterns16(65536);
  for (uint32_t p = 0; p < 65536; ++p) patterns16[p] = static_cast<uint16_t>(p);
  std::vector<std::byte> f16, bf16;
  device().run("decode16", patterns16, {&f16, &bf16}, {4, 4});
  int bad = 0;
  for (uint32_t p = 0; p < 65536; ++p) {
    if (!kgb_test::same_float(element<float>(f16, p), kgb_test::f16_value(p)) && ++bad <= 10) FAIL_CHECK("f16 " << p);
    if (kgb_test::float_bits(element<float>(bf16, p)) != kgb_test::float_bits(kgb_test::bf16_value(p)) && ++bad <= 10)
      FAIL_CHECK("bf16 " << p);
  }
  std::vector<uint8_t> patterns8(256);
  for (uint32_t p = 0; p < 256; ++p) patterns8[p] = static_cast<uint8_t>(p);
  std::vector<std::byte> e4m3fn, e5m2;
  device().run("decode8", patterns8, {&e4m3fn, &e5m2}, {4, 4});
  for (uint32_t p = 0; p < 256; ++p) {
    CAPTURE(p);
    CHECK(kgb_test::same_float(element<float>(e4m3fn, p), kgb_test::e4m3fn_value(p)));
    CHECK(kgb_test::same_float(element<float>(e5m2, p), kgb_test::e5m2_value(p)));
  }
  CHECK(bad == 0);
}

TEST_CASE("OpenCL C helpers: every encoder on the rounding probes and a million random floats") {
  const std::vector<float> inputs = kgb_test::encoder_inputs(1'000'000);
  std::vector<std::byte> f16, bf16, e4m3fn, e4m3fn_sat, e5m2, e5m2_sat;
  device().run("encode", inputs, {&f16, &bf16, &e4m3fn, &e4m3fn_sat, &e5m2, &e5m2_sat}, {2, 2, 1, 1, 1, 1});
  int64_t mismatches = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const kgb_test::Encoded got{element<uint16_t>(f16, i),       element<uint16_t>(bf16, i),
                                element<uint8_t>(e4m3fn, i),     element<uint8_t>(e4m3fn_sat, i),
                                element<uint8_t>(e5m2, i),       element<uint8_t>(e5m2_sat, i)};
    const kgb_test::Encoded want = kgb_test::expected_encoding(inputs[i]);
    if (!(got == want) && ++mismatches <= 10)
      FAIL_CHECK(inputs[i] << " (bits " << kgb_test::float_bits(inputs[i])
                           << "): " << kgb_test::describe_mismatch(got, want));
  }
  CHECK(mismatches == 0);
  MESSAGE("compared " << inputs.size() << " floats on PoCL");
}
