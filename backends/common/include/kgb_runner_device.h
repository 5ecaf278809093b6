// What a backend's runner provides to the generic runner loop: memory, copies,
// a stream, a timer and a cache flush on its device. The loop itself (protocol,
// poisoning, restoring in-place tensors, the adaptive timing loop) is shared by
// every backend in runner_loop.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kgb_runner_abi.h"

namespace kgb::wire {
struct EntrySignature;
struct Job;
struct JobResult;
}

namespace kgb::runner {

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string backend() const = 0;
  virtual std::string describe() const = 0;  // device name and clocks for the verdict
  virtual void* allocate(size_t bytes) = 0;  // nullptr on failure
  virtual void release(void* p) = 0;
  // Memory the host can read and the device can address (pinned host memory
  // on GPUs): tensors with `location: host`. Released with release_host.
  virtual void* allocate_host(size_t bytes) { return allocate(bytes); }
  virtual void release_host(void* p) { release(p); }
  // A device-resident copy of an array of device pointers (cuBLAS-style
  // pointer arrays); a host array where the device is the host; nullptr
  // where the backend has none (OpenCL). Released with release_pointer_array.
  virtual void* make_pointer_array(void* const* pointers, size_t count);
  virtual void release_pointer_array(void* p);
  virtual void upload(void* device_dst, const void* host_src, size_t bytes) = 0;
  virtual void download(void* host_dst, const void* device_src, size_t bytes) = 0;
  virtual void copy(void* device_dst, const void* device_src, size_t bytes) = 0;
  virtual void fill(void* device_dst, uint8_t byte, size_t bytes) = 0;
  virtual kgb_stream stream() = 0;
  virtual void synchronize() = 0;
  // Evicts the candidate's data from the caches before a timed call.
  virtual void flush_cache(int64_t bytes) = 0;
  // Runs the call once and returns its duration in microseconds measured with
  // the device's own timer (events on the harness stream/queue on GPUs), plus
  // `host_us`: host wall time from just before the call until a device-wide
  // synchronise afterwards (catches work on side streams and deferred work).
  virtual double timed_call(kgb_invoke_fn fn, const kgb_arg* args, int32_t nargs, int& status, double& host_us) = 0;
  // A non-empty message when the device is in an unrecoverable state.
  virtual std::string sticky_error() { return {}; }
  // A job is over and the runner waits for the next: release anything that
  // would keep cores busy meanwhile (the parent or a baseline may be timing).
  virtual void idle() {}
  // Device work items issued since the last call (kernel launches, enqueues), or -1.
  virtual int64_t take_launch_count() { return -1; }
  // Of the launches counted by the last take_launch_count(), those of library
  // kernels (cuBLAS, ...) that the count above leaves out, or -1 when the
  // backend cannot tell them apart.
  virtual int64_t take_library_launch_count() { return -1; }
  // Copy and fill commands (memcpy, memset, buffer reads, writes, copies and
  // fills) issued since the last call, or -1 when the backend cannot count
  // them. The runner's own transfers are not counted.
  virtual int64_t take_copy_count() { return -1; }
};

// The entry signatures the parent sent with its hello (names and kinds of
// the parameters, the upstream operator): what a generic baseline needs to
// build a call by name. `current_entry` is the entry of the job being run.
const wire::EntrySignature* current_entry();
// The signature of an entry by key, from the hello (nullptr when absent).
const wire::EntrySignature* entry_signature(const char* key);

// A check job run in this process, as a runner would run it (tests and
// oracles call implementations on the harness's own argument structures).
// `entry` is what current_entry() answers meanwhile.
wire::JobResult run_check_job(Device& device, kgb_invoke_fn fn, const wire::Job& job, const wire::EntrySignature* entry);

// Serves the protocol on fds 3/4 until Bye or EOF. Returns the process exit
// code. `implementation_kind` is asked after the task id was resolved.
using KindFn = const char* (*)();
int serve(Device& device, KindFn implementation_kind);

}  // namespace kgb::runner
