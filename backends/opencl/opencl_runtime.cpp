#include "opencl_runtime.h"

#include <algorithm>
#include <regex>
#include <sstream>

#include "kgb/runner_rules.h"
#include "kgb_half.h"

namespace kgb::opencl {

void BufferTable::insert(const Allocation& a) {
  std::lock_guard lock(mutex_);
  by_base_[a.base] = a;
}

bool BufferTable::erase(uintptr_t base, Allocation* removed) {
  std::lock_guard lock(mutex_);
  auto it = by_base_.find(base);
  if (it == by_base_.end()) return false;
  if (removed) *removed = it->second;
  by_base_.erase(it);
  return true;
}

bool BufferTable::find(const void* p, Allocation* found, size_t* buffer_offset) const {
  std::lock_guard lock(mutex_);
  auto address = reinterpret_cast<uintptr_t>(p);
  auto it = by_base_.upper_bound(address);
  if (it == by_base_.begin()) return false;
  --it;
  const Allocation& a = it->second;
  if (address > a.base + a.bytes) return false;
  if (found) *found = a;
  if (buffer_offset) *buffer_offset = a.guard + (address - a.base);
  return true;
}

std::vector<Allocation> BufferTable::all() const {
  std::lock_guard lock(mutex_);
  std::vector<Allocation> out;
  for (const auto& [base, a] : by_base_) out.push_back(a);
  return out;
}

bool BufferTable::find_buffer(cl_mem buffer, Allocation* found) const {
  std::lock_guard lock(mutex_);
  for (const auto& [base, a] : by_base_)
    if (a.buffer == buffer) {
      if (found) *found = a;
      return true;
    }
  return false;
}

void EnqueueLog::start_recording() {
  std::lock_guard lock(mutex_);
  recording_ = true;
  events_.clear();
}

std::vector<cl_event> EnqueueLog::stop_recording() {
  std::lock_guard lock(mutex_);
  recording_ = false;
  return std::exchange(events_, {});
}

int64_t EnqueueLog::take_kernel_count() {
  std::lock_guard lock(mutex_);
  return std::exchange(kernels_, 0);
}

int64_t EnqueueLog::take_copy_count() {
  std::lock_guard lock(mutex_);
  return std::exchange(copies_, 0);
}

cl_event* EnqueueLog::before(cl_event* user_event, cl_event* local_slot) {
  std::lock_guard lock(mutex_);
  if (user_event) return user_event;
  return recording_ ? local_slot : nullptr;
}

void EnqueueLog::after(cl_int status, CommandKind kind, cl_event* user_event, cl_event* slot) {
  std::lock_guard lock(mutex_);
  if (status != CL_SUCCESS) return;
  if (kind == CommandKind::Kernel) ++kernels_;
  else if (kind == CommandKind::Transfer) ++copies_;
  if (!recording_ || !slot || !*slot) return;
  // The caller keeps its own reference to an event it asked for.
  if (user_event) clRetainEvent(*slot);
  events_.push_back(*slot);
}

void EnqueueLog::guard(cl_command_queue harness_queue, const BufferTable* harness_buffers) {
  std::lock_guard lock(mutex_);
  harness_queue_ = harness_queue;
  harness_buffers_ = harness_buffers;
}

void EnqueueLog::check_queue(cl_command_queue queue, const char* call) {
  std::lock_guard lock(mutex_);
  if (!harness_queue_ || queue == harness_queue_ || !violation_.empty()) return;
  violation_ = std::string(kgb::wire::kRuleForeignQueue) + ": " + call +
               " on a command queue the harness did not give: every command of a call goes to "
               "kgb_cl_get_queue(stream), whose events time it";
}

void EnqueueLog::check_host_access(cl_mem object, const char* call) {
  if (HarnessAccess::active() || !object) return;
  // A sub-buffer, or an image made from a buffer, reaches its parent's memory.
  cl_mem root = object;
  for (int depth = 0; depth < 8; ++depth) {
    cl_mem parent = nullptr;
    if (clGetMemObjectInfo(root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr) != CL_SUCCESS || !parent) break;
    root = parent;
  }
  std::lock_guard lock(mutex_);
  Allocation a;
  if (!harness_buffers_ || !violation_.empty() || !harness_buffers_->find_buffer(root, &a)) return;
  violation_ = std::string(kgb::wire::kRuleHostDeviceAccess) + ": " + call + " on device allocation #" +
               std::to_string(a.serial) + " (" + std::to_string(a.bytes) +
               " bytes the harness gave the call): host memory may not be written into, or mapped onto, the harness's "
               "tensors; outputs come from device work (kernels, device copies and fills), inputs may be read with "
               "clEnqueueReadBuffer";
}

std::string EnqueueLog::take_violation() {
  std::lock_guard lock(mutex_);
  return std::exchange(violation_, {});
}

namespace {
thread_local int harness_access_depth = 0;
}  // namespace

HarnessAccess::HarnessAccess() { ++harness_access_depth; }
HarnessAccess::~HarnessAccess() { --harness_access_depth; }
bool HarnessAccess::active() { return harness_access_depth > 0; }

EnqueueLog& enqueue_log() {
  static EnqueueLog log;
  return log;
}

namespace {

struct ProgramPlace {
  bool found = false;
  int line = 1, column = 1;  // of the program's first character in the launcher
};

ProgramPlace locate(const std::string& source, const std::string& launcher) {
  ProgramPlace place;
  if (source.empty() || launcher.empty()) return place;
  size_t at = launcher.find(source);
  if (at == std::string::npos) return place;
  place.found = true;
  for (size_t i = 0; i < at; ++i)
    if (launcher[i] == '\n') {
      ++place.line;
      place.column = 1;
    } else {
      ++place.column;
    }
  return place;
}

}  // namespace

std::string format_build_log(const std::string& log, const std::string& source, const std::string& launcher_text) {
  // Compilers name the program file differently ("<source>", "<kernel>",
  // "input.cl", a temporary path); only line, column and message matter.
  // Clang-based compilers print "file:line:col: error: message"; PoCL puts
  // the severity first: "error: file:line:col: message".
  static const std::regex diag(R"(^(.*?):(\d+):(\d+): (fatal error|error|warning|note): (.*)$)");
  static const std::regex severity_first(R"(^(fatal error|error|warning|note): (.*?):(\d+):(\d+): (.*)$)");
  // A program that starts with kgb_half.h's OpenCL helpers is found in the
  // launcher by the text after them; diagnostics inside them name kgb_half.h.
  const std::string_view helpers = KGB_CL_HALF_SOURCE;
  const bool has_helpers = source.starts_with(helpers);
  const int helper_lines = has_helpers ? static_cast<int>(std::count(helpers.begin(), helpers.end(), '\n')) : 0;
  ProgramPlace place = locate(has_helpers ? source.substr(helpers.size()) : source, launcher_text);
  std::istringstream in(log);
  std::ostringstream out;
  std::string line;
  bool any_error = false;
  std::string first_text;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    bool located = false;
    int l = 0, c = 0;
    std::string severity, message;
    if (std::regex_match(line, m, diag)) {
      located = true;
      l = std::stoi(m[2]);
      c = std::stoi(m[3]);
      severity = m[4];
      message = m[5];
    } else if (std::regex_match(line, m, severity_first)) {
      located = true;
      l = std::stoi(m[3]);
      c = std::stoi(m[4]);
      severity = m[1];
      message = m[5];
    }
    if (located) {
      any_error = any_error || severity == "error" || severity == "fatal error";
      if (l <= helper_lines) {
        out << "kgb_half.h:" << l << ":" << c << ": " << severity << ": " << message << " (in KGB_CL_HALF_SOURCE)\n";
        continue;
      }
      l -= helper_lines;
      if (place.found) {
        c = l == 1 ? place.column + c - 1 : c;
        l = place.line + l - 1;
        out << "candidate.cpp:" << l << ":" << c << ": " << severity << ": " << message << "\n";
      } else {
        out << "candidate.cl:" << l << ":" << c << ": " << severity << ": " << message << "\n";
      }
    } else if (!line.empty()) {
      if (first_text.empty() && line.find_first_not_of(" \t") != std::string::npos) first_text = line;
      out << "    " << line << "\n";  // excerpts and notes, kept readable but never parsed as diagnostics
    }
  }
  if (!any_error) {
    // No located error in the log: still give one parsable diagnostic.
    out << (place.found ? "candidate.cpp:" + std::to_string(place.line) : std::string("candidate.cl:0"))
        << ":0: error: OpenCL program build failed" << (first_text.empty() ? "" : ": " + first_text) << "\n";
  }
  return out.str();
}

}  // namespace kgb::opencl
