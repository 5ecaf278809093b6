#include "opencl_device.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <limits>
#include <vector>

#include "device_select.h"
#include "enqueue_profile.h"

namespace kgb::runner {
namespace {

constexpr size_t kGuardBytes = 4096;   // canary bytes on each side of every storage

// Under Oclgrind (`kgb profile --sanitize`, KGB_OPENCL_EXACT_BUFFERS=1) every
// storage gets a buffer of exactly its size and no guard zones: an access
// past a tensor is then outside its buffer, which the simulator reports.
size_t guard_bytes() {
  static const bool exact = [] {
    const char* v = std::getenv("KGB_OPENCL_EXACT_BUFFERS");
    return v && std::string(v) == "1";
  }();
  return exact ? 0 : kGuardBytes;
}
constexpr unsigned char kCanary = 0xCD;

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

std::string cl_error_name(cl_int e) {
  switch (e) {
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    default: return "OpenCL error " + std::to_string(e);
  }
}

template <typename T>
T device_info(cl_device_id d, cl_device_info what, T fallback) {
  T v{};
  return clGetDeviceInfo(d, what, sizeof v, &v, nullptr) == CL_SUCCESS ? v : fallback;
}

}  // namespace

OpenClDevice::OpenClDevice() {
  auto choice = opencl::choose_device_from_environment();
  if (!choice.device) {
    init_error_ = choice.error;
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(choice.platform), 0};
  context_.context = clCreateContext(props, 1, &choice.device, nullptr, nullptr, &err);
  if (!context_.context) {
    init_error_ = "clCreateContext failed: " + cl_error_name(err);
    return;
  }
  context_.device = choice.device;
  // In order, with profiling: the events of a call's commands give its device time.
  context_.queue = clCreateCommandQueue(context_.context, choice.device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (!context_.queue) {
    init_error_ = "clCreateCommandQueue failed: " + cl_error_name(err);
    return;
  }
  context_.type = device_info<cl_device_type>(choice.device, CL_DEVICE_TYPE, CL_DEVICE_TYPE_DEFAULT);
  context_.local_mem = device_info<cl_ulong>(choice.device, CL_DEVICE_LOCAL_MEM_SIZE, 16384);
  context_.fp64 = device_info<cl_device_fp_config>(choice.device, CL_DEVICE_DOUBLE_FP_CONFIG, 0) != 0;
  context_.buffers = &buffers_;
  opencl::enqueue_log().guard(context_.queue, &buffers_);
  cl_uint units = device_info<cl_uint>(choice.device, CL_DEVICE_MAX_COMPUTE_UNITS, 0);
  cl_uint mhz = device_info<cl_uint>(choice.device, CL_DEVICE_MAX_CLOCK_FREQUENCY, 0);
  description_ = choice.description + ", " + std::to_string(units) + " compute units, max clock " +
                 std::to_string(mhz) + " MHz";
  // The flush buffer: twice the device's cache, within [8 MiB, 128 MiB].
  cl_ulong cache = device_info<cl_ulong>(choice.device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, 0);
  flush_bytes_ = std::clamp<size_t>(static_cast<size_t>(2 * cache), 8u << 20, 128u << 20);
}

OpenClDevice::~OpenClDevice() {
  if (context_.queue) clFinish(context_.queue);
  for (auto& [key, k] : context_.kernels) clReleaseKernel(k);
  for (auto& [key, m] : context_.list_offsets) clReleaseMemObject(m);
  for (auto& [key, entry] : context_.programs)
    if (entry.program) clReleaseProgram(entry.program);
  for (const auto& a : buffers_.all()) {
    clReleaseMemObject(a.buffer);
    munmap(reinterpret_cast<void*>(a.base), a.reserved);
  }
  if (flush_buffer_) clReleaseMemObject(flush_buffer_);
  if (context_.queue) clReleaseCommandQueue(context_.queue);
  if (context_.context) clReleaseContext(context_.context);
}

void OpenClDevice::fail(const std::string& message) {
  if (sticky_.empty()) sticky_ = message;
}

void* OpenClDevice::allocate(size_t bytes) {
  if (!context_.context) return nullptr;
  opencl::Allocation a;
  a.bytes = bytes;
  a.guard = guard_bytes();
  a.buffer_bytes = a.guard ? a.guard + round_up(std::max<size_t>(bytes, 1), 64) + a.guard : std::max<size_t>(bytes, 1);
  cl_int err = CL_SUCCESS;
  a.buffer = clCreateBuffer(context_.context, CL_MEM_READ_WRITE, a.buffer_bytes, nullptr, &err);
  if (!a.buffer) return nullptr;
  // Everything outside [guard, guard + bytes) holds the canary.
  const unsigned char canary = kCanary;
  size_t tail = a.buffer_bytes - a.guard - bytes;
  if (a.guard && (clEnqueueFillBuffer(context_.queue, a.buffer, &canary, 1, 0, a.guard, 0, nullptr, nullptr) != CL_SUCCESS ||
                  clEnqueueFillBuffer(context_.queue, a.buffer, &canary, 1, a.guard + bytes, tail, 0, nullptr, nullptr) != CL_SUCCESS)) {
    clReleaseMemObject(a.buffer);
    return nullptr;
  }
  // A placeholder address with no access rights: the candidate sees it as
  // the storage, and a host dereference of it faults.
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  a.reserved = round_up(std::max<size_t>(bytes, 1), page) + page;
  void* base = mmap(nullptr, a.reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    clReleaseMemObject(a.buffer);
    return nullptr;
  }
  a.base = reinterpret_cast<uintptr_t>(base);
  a.serial = next_serial_++;
  buffers_.insert(a);
  return base;
}

void OpenClDevice::release(void* p) {
  opencl::Allocation a;
  if (!buffers_.erase(reinterpret_cast<uintptr_t>(p), &a)) return;
  clReleaseMemObject(a.buffer);
  munmap(reinterpret_cast<void*>(a.base), a.reserved);
}

bool OpenClDevice::locate(const void* p, opencl::Allocation& a, size_t& offset, const char* what) {
  if (buffers_.find(p, &a, &offset)) return true;
  fail(std::string("runner: ") + what + " on an address that is not a device allocation");
  return false;
}

void OpenClDevice::upload(void* device_dst, const void* host_src, size_t bytes) {
  opencl::Allocation a;
  size_t offset = 0;
  if (bytes == 0 || !locate(device_dst, a, offset, "upload")) return;
  opencl::HarnessAccess own_transfer;
  cl_int err = clEnqueueWriteBuffer(context_.queue, a.buffer, CL_TRUE, offset, bytes, host_src, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) fail("upload failed: " + cl_error_name(err));
}

void OpenClDevice::download(void* host_dst, const void* device_src, size_t bytes) {
  opencl::Allocation a;
  size_t offset = 0;
  if (bytes == 0 || !locate(device_src, a, offset, "download")) return;
  cl_int err = clEnqueueReadBuffer(context_.queue, a.buffer, CL_TRUE, offset, bytes, host_dst, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    fail("download failed: " + cl_error_name(err) + " (a kernel may have faulted)");
    std::memset(host_dst, 0, bytes);
  }
}

void OpenClDevice::copy(void* device_dst, const void* device_src, size_t bytes) {
  opencl::Allocation d, s;
  size_t doff = 0, soff = 0;
  if (bytes == 0 || !locate(device_dst, d, doff, "copy") || !locate(device_src, s, soff, "copy")) return;
  cl_int err = clEnqueueCopyBuffer(context_.queue, s.buffer, d.buffer, soff, doff, bytes, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) fail("device copy failed: " + cl_error_name(err));
}

void OpenClDevice::fill(void* device_dst, uint8_t byte, size_t bytes) {
  opencl::Allocation a;
  size_t offset = 0;
  if (bytes == 0 || !locate(device_dst, a, offset, "fill")) return;
  cl_int err = clEnqueueFillBuffer(context_.queue, a.buffer, &byte, 1, offset, bytes, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) fail("device fill failed: " + cl_error_name(err));
}

void OpenClDevice::synchronize() {
  if (!context_.queue) return;
  cl_int err = clFinish(context_.queue);
  if (err != CL_SUCCESS) fail("clFinish failed: " + cl_error_name(err) + " (a kernel faulted or the device was lost)");
}

void OpenClDevice::flush_cache(int64_t bytes) {
  if (!context_.context) return;
  size_t size = std::max<size_t>(flush_bytes_, bytes > 0 ? static_cast<size_t>(bytes) : 0);
  if (!flush_buffer_ || size > flush_bytes_) {
    if (flush_buffer_) clReleaseMemObject(flush_buffer_);
    flush_bytes_ = size;
    flush_buffer_ = clCreateBuffer(context_.context, CL_MEM_READ_WRITE, flush_bytes_, nullptr, nullptr);
    if (!flush_buffer_) return;
  }
  // A new value every round: the device must write every line again.
  ++flush_round_;
  clEnqueueFillBuffer(context_.queue, flush_buffer_, &flush_round_, 1, 0, flush_bytes_, 0, nullptr, nullptr);
}

namespace {

// [start, end] in nanoseconds of a finished command, when profiled.
bool profile(cl_event e, cl_ulong& start, cl_ulong& end) {
  return clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) == CL_SUCCESS &&
         clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) == CL_SUCCESS && end >= start;
}

}  // namespace

double OpenClDevice::timed_call(kgb_invoke_fn fn, const kgb_arg* args, int32_t nargs, int& status, double& host_us) {
  auto& log = opencl::enqueue_log();
  cl_event before = nullptr, after = nullptr;
  clEnqueueMarkerWithWaitList(context_.queue, 0, nullptr, &before);
  log.start_recording();
  auto t0 = std::chrono::steady_clock::now();
  status = fn(args, nargs, &context_);
  std::vector<cl_event> events = log.stop_recording();
  clEnqueueMarkerWithWaitList(context_.queue, 0, nullptr, &after);
  cl_int err = clFinish(context_.queue);
  auto t1 = std::chrono::steady_clock::now();
  host_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  if (err != CL_SUCCESS) fail("clFinish failed: " + cl_error_name(err) + " (a kernel faulted or the device was lost)");

  // Device time: the union of the commands' own [start, end] intervals, the
  // time the device spent on the call's work. Not the span from the first
  // command to the last: host work between two commands (a result computed on
  // the host, then published by a copy and a no-op kernel) would count as
  // device time there; here it is a gap that the hybrid check sees in the
  // host time. For commands back to back, as an in-order queue runs them, the
  // two are the same. A call whose commands are invisible here (a library
  // linked elsewhere) falls back to the markers around it, then to the host time.
  std::vector<std::pair<cl_ulong, cl_ulong>> intervals;
  for (cl_event e : events) {
    cl_ulong s = 0, f = 0;
    if (profile(e, s, f)) intervals.emplace_back(s, f);
    clReleaseEvent(e);
  }
  double device_us = -1;
  if (!intervals.empty()) {
    std::sort(intervals.begin(), intervals.end());
    cl_ulong busy = 0, open_start = intervals.front().first, open_end = intervals.front().second;
    for (const auto& [s, f] : intervals) {
      if (s > open_end) {
        busy += open_end - open_start;
        open_start = s;
      }
      open_end = std::max(open_end, f);
    }
    busy += open_end - open_start;
    device_us = static_cast<double>(busy) / 1000.0;
  } else {
    cl_ulong s0 = 0, f0 = 0, s1 = 0, f1 = 0;
    if (before && after && profile(before, s0, f0) && profile(after, s1, f1) && f1 >= s0)
      device_us = static_cast<double>(f1 - s0) / 1000.0;
  }
  if (before) clReleaseEvent(before);
  if (after) clReleaseEvent(after);
  return device_us >= 0 ? device_us : host_us;
}

void OpenClDevice::check_guards() {
  if (guard_bytes() == 0) return;
  std::vector<unsigned char> front(kGuardBytes), back;
  for (const auto& a : buffers_.all()) {
    size_t tail = a.buffer_bytes - a.guard - a.bytes;
    back.resize(tail);
    if (clEnqueueReadBuffer(context_.queue, a.buffer, CL_TRUE, 0, a.guard, front.data(), 0, nullptr, nullptr) != CL_SUCCESS ||
        clEnqueueReadBuffer(context_.queue, a.buffer, CL_TRUE, a.guard + a.bytes, tail, back.data(), 0, nullptr, nullptr) !=
            CL_SUCCESS) {
      fail("reading the guard zones failed (a kernel may have faulted)");
      return;
    }
    auto changed = [](const std::vector<unsigned char>& v) {
      return std::count_if(v.begin(), v.end(), [](unsigned char c) { return c != kCanary; });
    };
    auto before = changed(front), after = changed(back);
    if (before || after) {
      fail("out-of-bounds write: " + std::to_string(before) + " byte(s) before and " + std::to_string(after) +
           " byte(s) after the " + std::to_string(a.bytes) + "-byte storage of device allocation #" +
           std::to_string(a.serial) + " were overwritten (writes outside every tensor's storage)");
      return;
    }
  }
}

std::string OpenClDevice::sticky_error() {
  if (!init_error_.empty()) return init_error_;
  if (sticky_.empty()) {
    std::string violation = opencl::enqueue_log().take_violation();
    if (!violation.empty()) sticky_ = std::move(violation);
  }
  if (sticky_.empty()) check_guards();
  return sticky_;
}

void OpenClDevice::idle() {
  if (auto* profile = opencl::EnqueueProfile::active()) profile->flush();
}

int64_t OpenClDevice::take_launch_count() { return opencl::enqueue_log().take_kernel_count(); }
int64_t OpenClDevice::take_copy_count() { return opencl::enqueue_log().take_copy_count(); }

}  // namespace kgb::runner
