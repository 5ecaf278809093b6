// The kgb_cl_* helpers a candidate's launcher calls (see kgb_opencl.h).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "opencl_runtime.h"

namespace {

kgb_cl_context* as_context(kgb_stream stream) { return static_cast<kgb_cl_context*>(stream); }

// The launcher's text, when the runner runs next to it (the evaluator's work
// folder): build errors then point at launcher lines.
const std::string& launcher_text() {
  static const std::string text = [] {
    std::ifstream in("candidate.cpp", std::ios::binary);
    std::ostringstream os;
    if (in) os << in.rdbuf();
    return os.str();
  }();
  return text;
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t n = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string log(n, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

extern "C" {

cl_context kgb_cl_get_context(kgb_stream stream) { return stream ? as_context(stream)->context : nullptr; }
cl_device_id kgb_cl_get_device(kgb_stream stream) { return stream ? as_context(stream)->device : nullptr; }
cl_command_queue kgb_cl_get_queue(kgb_stream stream) { return stream ? as_context(stream)->queue : nullptr; }
cl_device_type kgb_cl_device_type(kgb_stream stream) { return stream ? as_context(stream)->type : 0; }
cl_ulong kgb_cl_local_mem_size(kgb_stream stream) { return stream ? as_context(stream)->local_mem : 0; }
int kgb_cl_has_fp64(kgb_stream stream) { return stream && as_context(stream)->fp64 ? 1 : 0; }

cl_int kgb_cl_build_program(kgb_stream stream, const char* source, const char* options, cl_program* program) {
  if (!stream || !source || !program) return CL_INVALID_VALUE;
  kgb_cl_context* ctx = as_context(stream);
  std::lock_guard lock(ctx->mutex);
  auto key = std::make_pair(std::string(source), std::string(options ? options : ""));
  auto it = ctx->programs.find(key);
  if (it != ctx->programs.end()) {
    *program = it->second.program;
    return it->second.error;
  }
  cl_int err = CL_SUCCESS;
  const char* text = source;
  cl_program p = clCreateProgramWithSource(ctx->context, 1, &text, nullptr, &err);
  if (!p) {
    ctx->programs[key] = {nullptr, err};
    *program = nullptr;
    return err;
  }
  err = clBuildProgram(p, 1, &ctx->device, key.second.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    // Once per (source, options): later calls return the same error quietly.
    std::string log = build_log(p, ctx->device);
    std::string formatted = kgb::opencl::format_build_log(log, key.first, launcher_text());
    std::fprintf(stderr, "%s", formatted.c_str());
    std::fflush(stderr);
    clReleaseProgram(p);
    if (err != CL_INVALID_BUILD_OPTIONS) err = CL_BUILD_PROGRAM_FAILURE;
    ctx->programs[key] = {nullptr, err};
    *program = nullptr;
    return err;
  }
  ctx->programs[key] = {p, CL_SUCCESS};
  *program = p;
  return CL_SUCCESS;
}

cl_int kgb_cl_get_kernel(kgb_stream stream, const char* source, const char* options, const char* name,
                         cl_kernel* kernel) {
  if (!kernel || !name) return CL_INVALID_VALUE;
  *kernel = nullptr;
  cl_program program = nullptr;
  cl_int err = kgb_cl_build_program(stream, source, options, &program);
  if (err != CL_SUCCESS) return err;
  kgb_cl_context* ctx = as_context(stream);
  std::lock_guard lock(ctx->mutex);
  auto key = std::make_pair(program, std::string(name));
  auto it = ctx->kernels.find(key);
  if (it != ctx->kernels.end()) {
    *kernel = it->second;
    return CL_SUCCESS;
  }
  cl_kernel k = clCreateKernel(program, name, &err);
  if (!k) {
    std::fprintf(stderr, "kgb_cl_get_kernel: the program has no kernel named '%s' (error %d)\n", name, err);
    return err;
  }
  ctx->kernels[key] = k;
  *kernel = k;
  return CL_SUCCESS;
}

cl_int kgb_cl_tensor_buffer(kgb_stream stream, const kgb_tensor* t, cl_mem* buffer, cl_long* offset_elements) {
  if (!stream || !t || !buffer) return CL_INVALID_VALUE;
  kgb::opencl::Allocation a;
  size_t byte_offset = 0;
  if (!as_context(stream)->buffers->find(t->data, &a, &byte_offset)) return CL_INVALID_MEM_OBJECT;
  int32_t size = kgb_dtype_size(t->dtype);
  if (size <= 0 || byte_offset % static_cast<size_t>(size) != 0) return CL_INVALID_VALUE;
  *buffer = a.buffer;
  if (offset_elements) *offset_elements = static_cast<cl_long>(byte_offset / static_cast<size_t>(size));
  return CL_SUCCESS;
}

cl_int kgb_cl_tensor_list_buffers(kgb_stream stream, const kgb_tensor_list* list, cl_mem* storage, cl_mem* offsets) {
  if (!stream || !list || !storage || !offsets || list->count < 0) return CL_INVALID_VALUE;
  kgb_cl_context* ctx = as_context(stream);
  std::vector<cl_long> element_offsets(static_cast<size_t>(std::max<int64_t>(list->count, 1)), -1);
  cl_mem buffer = nullptr;
  for (int64_t i = 0; i < list->count; ++i) {
    const kgb_tensor* item = list->items[i];
    if (!item) continue;
    cl_mem b = nullptr;
    cl_long offset = 0;
    if (cl_int err = kgb_cl_tensor_buffer(stream, item, &b, &offset); err != CL_SUCCESS) return err;
    if (buffer && b != buffer) return CL_INVALID_MEM_OBJECT;  // the items of a list share one allocation
    buffer = b;
    element_offsets[static_cast<size_t>(i)] = offset;
  }
  std::lock_guard lock(ctx->mutex);
  auto it = ctx->list_offsets.find(element_offsets);
  if (it == ctx->list_offsets.end()) {
    cl_int err = CL_SUCCESS;
    // Created with the host data: no command is enqueued on the harness queue.
    cl_mem m = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, element_offsets.size() * sizeof(cl_long),
                              element_offsets.data(), &err);
    if (!m) return err;
    it = ctx->list_offsets.emplace(element_offsets, m).first;
  }
  *storage = buffer;
  *offsets = it->second;
  return CL_SUCCESS;
}

cl_int kgb_cl_set_tensor_arg(kgb_stream stream, cl_kernel kernel, cl_uint index, const kgb_tensor* t) {
  cl_mem buffer = nullptr;
  cl_long offset = 0;
  cl_int err = kgb_cl_tensor_buffer(stream, t, &buffer, &offset);
  if (err != CL_SUCCESS) return err;
  err = clSetKernelArg(kernel, index, sizeof buffer, &buffer);
  if (err != CL_SUCCESS) return err;
  return clSetKernelArg(kernel, index + 1, sizeof offset, &offset);
}

cl_int kgb_cl_enqueue(kgb_stream stream, cl_kernel kernel, cl_uint work_dim, const size_t* global_size,
                      const size_t* local_size) {
  if (!stream || !kernel) return CL_INVALID_VALUE;
  // Counted and timed by the enqueue interposer like any direct call.
  return clEnqueueNDRangeKernel(as_context(stream)->queue, kernel, work_dim, nullptr, global_size, local_size, 0,
                                nullptr, nullptr);
}

size_t kgb_cl_max_work_group_size(kgb_stream stream, cl_kernel kernel) {
  if (!stream || !kernel) return 1;
  size_t n = 1;
  if (clGetKernelWorkGroupInfo(kernel, as_context(stream)->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof n, &n, nullptr) !=
      CL_SUCCESS)
    return 1;
  return n;
}

}  // extern "C"
