// `kgb profile` on OpenCL platforms: with KGB_OPENCL_PROFILE=<file> in the
// environment, every kernel enqueue made in the process keeps its profiling
// event. At the end of each job the runner waits for the queue and appends to
// the file one JSON line per enqueue (job number, kernel name, work sizes,
// queued/submit/start/end in device nanoseconds) and, the first time a kernel
// is seen, one line of its attributes (private and local memory, work-group
// limits, preferred work-group multiple) and its program's build options and
// log. Off (no event requested, nothing written) without the variable.
#pragma once

#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "kgb_opencl.h"

namespace kgb::opencl {

class EnqueueProfile {
 public:
  // The process's profile, or nullptr when KGB_OPENCL_PROFILE is not set.
  static EnqueueProfile* active();

  // One kernel enqueue that succeeded; the event is retained until flush().
  void record(cl_kernel kernel, cl_uint work_dim, const size_t* global_size, const size_t* local_size, cl_event event);
  // Waits for the recorded commands, appends their lines, releases the events.
  void flush();

 private:
  explicit EnqueueProfile(std::FILE* out) : out_(out) {}
  struct Pending {
    cl_kernel kernel;
    cl_uint work_dim;
    size_t global[3], local[3];
    bool has_local;
    cl_event event;
  };
  void describe_kernel(cl_kernel kernel, const std::string& name);

  std::FILE* out_;
  std::mutex mutex_;
  std::vector<Pending> pending_;
  std::set<std::string> described_;
  int64_t job_ = 0;
};

}  // namespace kgb::opencl
