// Interposers for the OpenCL enqueue calls. They are defined in the runner
// library, which every candidate executable links before libOpenCL, so every
// call in the executable (candidate, helpers, runner) lands here first and is
// forwarded to the ICD loader's function found with dlsym(RTLD_NEXT). Kernel
// enqueues are counted (the proof that device work ran); while a timed call
// is being recorded, the event of every command is kept for the device time;
// under `kgb profile` every kernel enqueue is kept too (enqueue_profile.h).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "enqueue_profile.h"
#include "opencl_runtime.h"

namespace {

template <typename Fn>
Fn next_symbol(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr, "kgb opencl runner: %s not found in the OpenCL library\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(p);
}

// Forwards one enqueue with an event slot the log chooses, then records it.
template <typename Call>
cl_int recorded(cl_command_queue queue, const char* name, kgb::opencl::CommandKind kind, cl_event* user_event, Call&& call) {
  auto& log = kgb::opencl::enqueue_log();
  log.check_queue(queue, name);
  cl_event local = nullptr;
  cl_event* slot = log.before(user_event, &local);
  cl_int status = call(slot);
  log.after(status, kind, user_event, slot);
  return status;
}

// A kernel enqueue: recorded like the others, and kept by the profile when
// `kgb profile` asked for one (with an event of its own when the caller
// passed none and no timed call is recording).
template <typename Call>
cl_int kernel_enqueued(cl_command_queue queue, const char* name, cl_kernel kernel, cl_uint work_dim, const size_t* global_size, const size_t* local_size,
                       cl_event* user_event, Call&& call) {
  auto* profile = kgb::opencl::EnqueueProfile::active();
  cl_event own = nullptr;
  cl_int status = recorded(queue, name, kgb::opencl::CommandKind::Kernel, user_event, [&](cl_event* slot) {
    if (!slot && profile) slot = &own;
    cl_int s = call(slot);
    if (s == CL_SUCCESS && profile && slot && *slot) profile->record(kernel, work_dim, global_size, local_size, *slot);
    return s;
  });
  if (own) clReleaseEvent(own);
  return status;
}

}  // namespace

#define KGB_NEXT(name) static const auto real = next_symbol<decltype(&name)>(#name)

extern "C" {

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                                                       const size_t* global_offset, const size_t* global_size,
                                                       const size_t* local_size, cl_uint num_wait,
                                                       const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueNDRangeKernel);
  return kernel_enqueued(queue, "clEnqueueNDRangeKernel", kernel, work_dim, global_size, local_size, event, [&](cl_event* slot) {
    return real(queue, kernel, work_dim, global_offset, global_size, local_size, num_wait, wait_list, slot);
  });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint num_wait,
                                              const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueTask);
  static const size_t one = 1;
  return kernel_enqueued(queue, "clEnqueueTask", kernel, 1, &one, &one, event,
                         [&](cl_event* slot) { return real(queue, kernel, num_wait, wait_list, slot); });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                    size_t offset, size_t size, void* ptr, cl_uint num_wait,
                                                    const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueReadBuffer);
  return recorded(queue, "clEnqueueReadBuffer", kgb::opencl::CommandKind::Transfer, event, [&](cl_event* slot) {
    return real(queue, buffer, blocking, offset, size, ptr, num_wait, wait_list, slot);
  });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                     size_t offset, size_t size, const void* ptr, cl_uint num_wait,
                                                     const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueWriteBuffer);
  kgb::opencl::enqueue_log().check_host_access(buffer, "clEnqueueWriteBuffer");
  return recorded(queue, "clEnqueueWriteBuffer", kgb::opencl::CommandKind::Transfer, event, [&](cl_event* slot) {
    return real(queue, buffer, blocking, offset, size, ptr, num_wait, wait_list, slot);
  });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                                                    size_t dst_offset, size_t size, cl_uint num_wait,
                                                    const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueCopyBuffer);
  return recorded(queue, "clEnqueueCopyBuffer", kgb::opencl::CommandKind::Transfer, event, [&](cl_event* slot) {
    return real(queue, src, dst, src_offset, dst_offset, size, num_wait, wait_list, slot);
  });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void* pattern,
                                                    size_t pattern_size, size_t offset, size_t size, cl_uint num_wait,
                                                    const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueFillBuffer);
  return recorded(queue, "clEnqueueFillBuffer", kgb::opencl::CommandKind::Transfer, event, [&](cl_event* slot) {
    return real(queue, buffer, pattern, pattern_size, offset, size, num_wait, wait_list, slot);
  });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                        const size_t* buffer_origin, const size_t* host_origin,
                                                        const size_t* region, size_t buffer_row_pitch,
                                                        size_t buffer_slice_pitch, size_t host_row_pitch,
                                                        size_t host_slice_pitch, void* ptr, cl_uint num_wait,
                                                        const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueReadBufferRect);
  return recorded(queue, "clEnqueueReadBufferRect", kgb::opencl::CommandKind::Transfer, event, [&](cl_event* slot) {
    return real(queue, buffer, blocking, buffer_origin, host_origin, region, buffer_row_pitch, buffer_slice_pitch,
                host_row_pitch, host_slice_pitch, ptr, num_wait, wait_list, slot);
  });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                         const size_t* buffer_origin, const size_t* host_origin,
                                                         const size_t* region, size_t buffer_row_pitch,
                                                         size_t buffer_slice_pitch, size_t host_row_pitch,
                                                         size_t host_slice_pitch, const void* ptr, cl_uint num_wait,
                                                         const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueWriteBufferRect);
  kgb::opencl::enqueue_log().check_host_access(buffer, "clEnqueueWriteBufferRect");
  return recorded(queue, "clEnqueueWriteBufferRect", kgb::opencl::CommandKind::Transfer, event, [&](cl_event* slot) {
    return real(queue, buffer, blocking, buffer_origin, host_origin, region, buffer_row_pitch, buffer_slice_pitch,
                host_row_pitch, host_slice_pitch, ptr, num_wait, wait_list, slot);
  });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                        const size_t* src_origin, const size_t* dst_origin,
                                                        const size_t* region, size_t src_row_pitch,
                                                        size_t src_slice_pitch, size_t dst_row_pitch,
                                                        size_t dst_slice_pitch, cl_uint num_wait,
                                                        const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueCopyBufferRect);
  return recorded(queue, "clEnqueueCopyBufferRect", kgb::opencl::CommandKind::Transfer, event, [&](cl_event* slot) {
    return real(queue, src, dst, src_origin, dst_origin, region, src_row_pitch, src_slice_pitch, dst_row_pitch,
                dst_slice_pitch, num_wait, wait_list, slot);
  });
}

// Maps hand the host a pointer into device memory (on a CPU device such as
// PoCL, the buffer itself, writable whatever the flags): a harness
// allocation may not be mapped, nor written from the host through an image.
CL_API_ENTRY void* CL_API_CALL clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                  cl_map_flags flags, size_t offset, size_t size, cl_uint num_wait,
                                                  const cl_event* wait_list, cl_event* event, cl_int* errcode) {
  KGB_NEXT(clEnqueueMapBuffer);
  kgb::opencl::enqueue_log().check_host_access(buffer, "clEnqueueMapBuffer");
  void* mapped = nullptr;
  cl_int status = recorded(queue, "clEnqueueMapBuffer", kgb::opencl::CommandKind::Map, event, [&](cl_event* slot) {
    cl_int s = CL_SUCCESS;
    mapped = real(queue, buffer, blocking, flags, offset, size, num_wait, wait_list, slot, &s);
    return s;
  });
  if (errcode) *errcode = status;
  return mapped;
}

CL_API_ENTRY void* CL_API_CALL clEnqueueMapImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                 cl_map_flags flags, const size_t* origin, const size_t* region,
                                                 size_t* row_pitch, size_t* slice_pitch, cl_uint num_wait,
                                                 const cl_event* wait_list, cl_event* event, cl_int* errcode) {
  KGB_NEXT(clEnqueueMapImage);
  kgb::opencl::enqueue_log().check_host_access(image, "clEnqueueMapImage");
  void* mapped = nullptr;
  cl_int status = recorded(queue, "clEnqueueMapImage", kgb::opencl::CommandKind::Map, event, [&](cl_event* slot) {
    cl_int s = CL_SUCCESS;
    mapped = real(queue, image, blocking, flags, origin, region, row_pitch, slice_pitch, num_wait, wait_list, slot, &s);
    return s;
  });
  if (errcode) *errcode = status;
  return mapped;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                    const size_t* origin, const size_t* region, size_t row_pitch,
                                                    size_t slice_pitch, const void* ptr, cl_uint num_wait,
                                                    const cl_event* wait_list, cl_event* event) {
  KGB_NEXT(clEnqueueWriteImage);
  kgb::opencl::enqueue_log().check_host_access(image, "clEnqueueWriteImage");
  return recorded(queue, "clEnqueueWriteImage", kgb::opencl::CommandKind::Transfer, event, [&](cl_event* slot) {
    return real(queue, image, blocking, origin, region, row_pitch, slice_pitch, ptr, num_wait, wait_list, slot);
  });
}

}  // extern "C"
