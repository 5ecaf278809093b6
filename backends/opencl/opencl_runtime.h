// Internals shared by the OpenCL device, the candidate helpers (kgb_cl_*) and
// the enqueue interposers: the table that turns a tensor's `data` value into
// (buffer, offset), the record of enqueued commands, and the context object a
// candidate receives as its stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kgb_opencl.h"

namespace kgb::opencl {

// One device allocation. Candidates see `base` (an address reserved with no
// access rights, so a host dereference faults) as the tensor storage; the
// buffer holds `guard` canary bytes before and after the storage so that
// out-of-bounds writes nearby are detected.
struct Allocation {
  cl_mem buffer = nullptr;
  uintptr_t base = 0;
  size_t bytes = 0;         // storage requested by the runner
  size_t reserved = 0;      // bytes of address space reserved at `base`
  size_t guard = 0;         // canary bytes on each side
  size_t buffer_bytes = 0;  // guard + padded storage + guard
  int64_t serial = 0;       // allocation order, for messages
};

class BufferTable {
 public:
  void insert(const Allocation& a);
  bool erase(uintptr_t base, Allocation* removed);
  // The allocation holding `p` (one past the end counts, for empty views) and
  // the byte offset of `p` inside its buffer (guard included).
  bool find(const void* p, Allocation* found, size_t* buffer_offset) const;
  std::vector<Allocation> all() const;

 private:
  mutable std::mutex mutex_;
  std::map<uintptr_t, Allocation> by_base_;
};

// Commands enqueued by code in this process (candidate, helpers, the runner's
// own transfers). Kernel enqueues are counted always; while `recording` is on
// (inside a timed call) the event of every command is kept for the device time.
class EnqueueLog {
 public:
  void start_recording();
  // Stops recording and hands over the events kept (the caller releases them).
  std::vector<cl_event> stop_recording();
  int64_t take_kernel_count();
  // Buffer reads, writes, copies and fills since the last take.
  int64_t take_copy_count();
  // Called by the interposers around each enqueue. `user_event` is the
  // caller's event pointer (may be null); returns the slot to pass on.
  cl_event* before(cl_event* user_event, cl_event* local_slot);
  void after(cl_int status, bool is_kernel, cl_event* user_event, cl_event* slot);

 private:
  std::mutex mutex_;
  bool recording_ = false;
  int64_t kernels_ = 0;
  int64_t copies_ = 0;
  std::vector<cl_event> events_;
};

EnqueueLog& enqueue_log();

// The OpenCL C compiler's log rewritten as gcc-style diagnostics against the
// launcher file (or the program when its text is not found there).
std::string format_build_log(const std::string& log, const std::string& source, const std::string& launcher_text);

}  // namespace kgb::opencl

// What a candidate's kgb_stream points to.
struct kgb_cl_context {
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  cl_command_queue queue = nullptr;
  cl_device_type type = 0;
  cl_ulong local_mem = 0;
  bool fp64 = false;
  const kgb::opencl::BufferTable* buffers = nullptr;
  // Program cache: (source, options) -> program, or the build error once seen.
  struct ProgramEntry {
    cl_program program = nullptr;
    cl_int error = CL_SUCCESS;
  };
  std::map<std::pair<std::string, std::string>, ProgramEntry> programs;
  std::map<std::pair<cl_program, std::string>, cl_kernel> kernels;
  // Offset buffers of tensor lists (kgb_cl_tensor_list_buffers), by content.
  std::map<std::vector<cl_long>, cl_mem> list_offsets;
  std::mutex mutex;
};
