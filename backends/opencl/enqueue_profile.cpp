#include "enqueue_profile.h"

#include <algorithm>
#include <cstdlib>

namespace kgb::opencl {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string kernel_name(cl_kernel kernel) {
  size_t size = 0;
  if (clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "?";
  std::string name(size, '\0');
  if (clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, size, name.data(), nullptr) != CL_SUCCESS) return "?";
  while (!name.empty() && name.back() == '\0') name.pop_back();
  return name;
}

std::string program_build_info(cl_program program, cl_device_id device, cl_program_build_info what) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  if (clGetProgramBuildInfo(program, device, what, size, text.data(), nullptr) != CL_SUCCESS) return {};
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
  constexpr size_t kMaxLog = 16 * 1024;
  if (text.size() > kMaxLog) text = text.substr(0, kMaxLog) + "\n[build log cut]";
  return text;
}

std::string sizes(const size_t* v, cl_uint n) {
  std::string out = "[";
  for (cl_uint d = 0; d < n; ++d) out += (d ? "," : "") + std::to_string(v[d]);
  return out + "]";
}

}  // namespace

EnqueueProfile* EnqueueProfile::active() {
  static EnqueueProfile* profile = [] () -> EnqueueProfile* {
    const char* path = std::getenv("KGB_OPENCL_PROFILE");
    if (!path || !*path) return nullptr;
    std::FILE* f = std::fopen(path, "a");
    return f ? new EnqueueProfile(f) : nullptr;  // lives as long as the process
  }();
  return profile;
}

void EnqueueProfile::record(cl_kernel kernel, cl_uint work_dim, const size_t* global_size, const size_t* local_size,
                            cl_event event) {
  Pending p{kernel, std::min<cl_uint>(work_dim, 3), {1, 1, 1}, {1, 1, 1}, local_size != nullptr, event};
  for (cl_uint d = 0; d < p.work_dim; ++d) {
    p.global[d] = global_size ? global_size[d] : 1;
    if (local_size) p.local[d] = local_size[d];
  }
  clRetainKernel(kernel);
  clRetainEvent(event);
  std::lock_guard lock(mutex_);
  pending_.push_back(p);
}

void EnqueueProfile::describe_kernel(cl_kernel kernel, const std::string& name) {
  cl_program program = nullptr;
  cl_context context = nullptr;
  clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, nullptr);
  clGetKernelInfo(kernel, CL_KERNEL_CONTEXT, sizeof context, &context, nullptr);
  cl_device_id device = nullptr;
  if (context) clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof device, &device, nullptr);
  cl_ulong private_mem = 0, local_mem = 0;
  size_t work_group = 0, multiple = 0;
  cl_uint args = 0;
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_mem, &private_mem, nullptr);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, nullptr);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof work_group, &work_group, nullptr);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof multiple, &multiple, nullptr);
  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr);
  const std::string options = program ? program_build_info(program, device, CL_PROGRAM_BUILD_OPTIONS) : "";
  const std::string log = program ? program_build_info(program, device, CL_PROGRAM_BUILD_LOG) : "";
  std::fprintf(out_,
               "{\"type\":\"kernel\",\"kernel\":%s,\"private_mem_bytes\":%llu,\"local_mem_bytes\":%llu,"
               "\"max_work_group_size\":%zu,\"preferred_work_group_multiple\":%zu,\"args\":%u,\"build_options\":%s,"
               "\"build_log\":%s}\n",
               json_string(name).c_str(), static_cast<unsigned long long>(private_mem),
               static_cast<unsigned long long>(local_mem), work_group, multiple, args, json_string(options).c_str(),
               json_string(log).c_str());
}

void EnqueueProfile::flush() {
  std::vector<Pending> done;
  {
    std::lock_guard lock(mutex_);
    done.swap(pending_);
  }
  std::vector<cl_event> events;
  for (const auto& p : done) events.push_back(p.event);
  if (!events.empty()) clWaitForEvents(static_cast<cl_uint>(events.size()), events.data());
  for (const auto& p : done) {
    const std::string name = kernel_name(p.kernel);
    if (described_.insert(name).second) describe_kernel(p.kernel, name);
    cl_ulong t[4] = {0, 0, 0, 0};
    const cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
                                       CL_PROFILING_COMMAND_END};
    bool timed = true;
    for (int i = 0; i < 4; ++i)
      timed = clGetEventProfilingInfo(p.event, what[i], sizeof t[i], &t[i], nullptr) == CL_SUCCESS && timed;
    std::fprintf(out_,
                 "{\"type\":\"enqueue\",\"job\":%lld,\"kernel\":%s,\"global\":%s,\"local\":%s,\"timed\":%s,"
                 "\"queued\":%llu,\"submit\":%llu,\"start\":%llu,\"end\":%llu}\n",
                 static_cast<long long>(job_), json_string(name).c_str(), sizes(p.global, p.work_dim).c_str(),
                 p.has_local ? sizes(p.local, p.work_dim).c_str() : "null", timed ? "true" : "false",
                 static_cast<unsigned long long>(t[0]), static_cast<unsigned long long>(t[1]),
                 static_cast<unsigned long long>(t[2]), static_cast<unsigned long long>(t[3]));
    clReleaseEvent(p.event);
    clReleaseKernel(p.kernel);
  }
  ++job_;
  std::fflush(out_);
}

}  // namespace kgb::opencl
