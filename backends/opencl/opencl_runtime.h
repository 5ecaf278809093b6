// Internals shared by the OpenCL device, the candidate helpers (kgb_cl_*) and
// the enqueue interposers: the table that turns a tensor's `data` value into
// (buffer, offset), the record of enqueued commands, and the context object a
// candidate receives as its stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
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
  // The allocation whose buffer is `buffer` (a sub-buffer or an image made
  // from one counts as that buffer: callers resolve them first).
  bool find_buffer(cl_mem buffer, Allocation* found) const;

 private:
  mutable std::mutex mutex_;
  std::map<uintptr_t, Allocation> by_base_;
};

// What an enqueued command counts as: a kernel, or a transfer (buffer read,
// write, copy, fill) as device work; a map as neither.
enum class CommandKind { Kernel, Transfer, Map };

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
  void after(cl_int status, CommandKind kind, cl_event* user_event, cl_event* slot);

  // What code in this process may do to the harness's data (integrity rule
  // class "device work that is not device work"): every command goes to the
  // harness's queue, and nothing writes host memory into a harness
  // allocation or maps one into host memory, so an output cannot be computed
  // on the host and published through a map or a host-to-device write. The
  // device sets the queue and its allocation table once; its own uploads run
  // inside a HarnessAccess scope. Reading a harness buffer into host memory
  // (clEnqueueReadBuffer: a scalar argument, an index range check) stays
  // allowed; host work between commands is not device time (timed_call).
  void guard(cl_command_queue harness_queue, const BufferTable* harness_buffers);
  void check_queue(cl_command_queue queue, const char* call);
  void check_host_access(cl_mem object, const char* call);
  // The first violation since the last take, "rule: message"; empty if none.
  std::string take_violation();

 private:
  std::mutex mutex_;
  bool recording_ = false;
  int64_t kernels_ = 0;
  int64_t copies_ = 0;
  std::vector<cl_event> events_;
  cl_command_queue harness_queue_ = nullptr;
  const BufferTable* harness_buffers_ = nullptr;
  std::string violation_;
};

// The harness's own transfers into its allocations, on this thread (a
// callback the candidate registered runs on a driver thread, outside it).
class HarnessAccess {
 public:
  HarnessAccess();
  ~HarnessAccess();
  HarnessAccess(const HarnessAccess&) = delete;
  HarnessAccess& operator=(const HarnessAccess&) = delete;
  static bool active();
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
  // kgb_cl_tensor_list_buffers' answers by a hash of the items' addresses: a
  // list of thousands of items is looked up per call in microseconds, not by
  // one allocation-table search per item (which put milliseconds of harness
  // time into the host clock of a timed call).
  struct ListAnswer {
    int64_t count = 0;
    cl_mem storage = nullptr, offsets = nullptr;
  };
  std::unordered_map<uint64_t, ListAnswer> list_answers;
  std::mutex mutex;
};
