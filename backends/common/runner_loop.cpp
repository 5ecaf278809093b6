// The runner side of the protocol, shared by all backends. It runs inside the
// candidate's process, so it keeps no secrets: the inputs it gets are already
// generated, and the reference outputs never come here.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <span>
#include <vector>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kgb/wire.h"
#include "kgb_runner_device.h"

namespace kgb::runner {
namespace {

using wire::Job;
using wire::JobMode;
using wire::JobResult;
using wire::MessageType;
using wire::Role;

constexpr uint64_t kMaxRequestBytes = 1ull << 36;

// Device storages for one input set: one allocation per tensor parameter.
struct SetBuffers {
  Device& device;
  std::vector<void*> storage;  // per param, nullptr for scalars
  std::vector<void*> pristine; // per inout param: copy to restore before each timed call
  std::vector<kgb_tensor> views;
  std::vector<kgb_tensor*> view_ptrs;

  explicit SetBuffers(Device& d) : device(d) {}
  ~SetBuffers() {
    for (void* p : storage)
      if (p) device.release(p);
    for (void* p : pristine)
      if (p) device.release(p);
  }
};

bool prepare_set(Device& device, const Job& job, const std::vector<std::span<const std::byte>>& inputs, SetBuffers& set,
                 bool keep_pristine, std::string& error) {
  size_t n = job.params.size();
  set.storage.assign(n, nullptr);
  set.pristine.assign(n, nullptr);
  set.views.assign(n, kgb_tensor{});
  set.view_ptrs.assign(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    const auto& p = job.params[i];
    if (!p.is_tensor) continue;
    const auto& t = p.tensor;
    size_t bytes = t.storage_bytes();
    // Allocate at least one byte so that empty tensors still get a valid pointer.
    void* mem = device.allocate(std::max<size_t>(bytes, 1));
    if (!mem) {
      error = "runner could not allocate " + std::to_string(bytes) + " bytes";
      if (!device.sticky_error().empty()) error += ": " + device.sticky_error();
      return false;
    }
    set.storage[i] = mem;
    auto role = static_cast<Role>(t.role);
    if (role == Role::Output) {
      device.fill(mem, job.poison, bytes);
    } else {
      if (inputs[i].size() != bytes) {
        error = "input storage size mismatch";
        return false;
      }
      device.upload(mem, inputs[i].data(), bytes);
      if (role == Role::InOut && keep_pristine) {
        void* copy = device.allocate(std::max<size_t>(bytes, 1));
        if (!copy) {
          error = "runner could not allocate a pristine copy";
          return false;
        }
        device.copy(copy, mem, bytes);
        set.pristine[i] = copy;
      }
    }
    kgb_tensor& v = set.views[i];
    v.data = static_cast<char*>(mem) + t.offset * kgb_dtype_size(t.dtype);
    v.dtype = t.dtype;
    v.rank = t.rank;
    for (int d = 0; d < t.rank; ++d) {
      v.sizes[d] = t.sizes[d];
      v.strides[d] = t.strides[d];
    }
    set.view_ptrs[i] = &v;
  }
  return true;
}

std::vector<kgb_scalar_value> scalars_of(const Job& job) {
  std::vector<kgb_scalar_value> s(job.params.size());
  for (size_t i = 0; i < job.params.size(); ++i)
    if (!job.params[i].is_tensor) s[i] = job.params[i].scalar;
  return s;
}

// Outputs come back as bytes; inputs only as a hash, which the parent compares
// with what it sent (the input-mutation check). A timing job skips the inputs:
// its check already passed, and hashing hundreds of MB costs more than the
// timed loop.
void collect(Device& device, const Job& job, SetBuffers& set, JobResult& result, bool hash_inputs) {
  std::vector<uint64_t> hashes(job.params.size(), 0);
  std::vector<std::vector<std::byte>> outs(job.params.size());
  for (size_t i = 0; i < job.params.size(); ++i) {
    const auto& p = job.params[i];
    if (!p.is_tensor) continue;
    size_t bytes = p.tensor.storage_bytes();
    const bool input = static_cast<Role>(p.tensor.role) == Role::Input;
    if (input && !hash_inputs) continue;
    std::vector<std::byte> host = wire::large_bytes(bytes);
    device.download(host.data(), set.storage[i], bytes);
    if (input) hashes[i] = wire::hash_bytes(host.data(), bytes);
    else outs[i] = std::move(host);
  }
  result.hashes.push_back(std::move(hashes));
  result.outputs.push_back(std::move(outs));
}

void restore_inout(Device& device, const Job& job, SetBuffers& set) {
  for (size_t i = 0; i < job.params.size(); ++i)
    if (set.pristine[i]) device.copy(set.storage[i], set.pristine[i], job.params[i].tensor.storage_bytes());
}

JobResult run_check(Device& device, kgb_invoke_fn fn, const Job& job) {
  JobResult result;
  auto start = std::chrono::steady_clock::now();
  auto scalars = scalars_of(job);
  for (const auto& inputs : job.sets) {
    SetBuffers set(device);
    if (!prepare_set(device, job, inputs, set, false, result.error)) return result;
    device.synchronize();
    device.take_launch_count();
    int status = fn(set.view_ptrs.data(), scalars.data(), device.stream());
    device.synchronize();
    int64_t launches = device.take_launch_count();
    if (launches >= 0) result.launches = std::max<int64_t>(result.launches, 0) + launches;
    int64_t library = device.take_library_launch_count();
    if (library >= 0) result.library_launches = std::max<int64_t>(result.library_launches, 0) + library;
    if (status != 0 && result.status == 0) result.status = status;
    result.error = device.sticky_error();
    if (!result.error.empty()) return result;
    collect(device, job, set, result, true);
  }
  result.child_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// The parent's shared memory on wire::kArenaFd, when it gave one.
class SharedArena {
 public:
  SharedArena() {
    struct stat st{};
    if (::fstat(wire::kArenaFd, &st) != 0 || st.st_size <= 0) return;
    // Populated at once: one call instead of a page fault per 4 KiB touched.
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                     wire::kArenaFd, 0);
    if (p == MAP_FAILED) return;
    base_ = static_cast<std::byte*>(p);
    size_ = static_cast<size_t>(st.st_size);
  }
  ~SharedArena() {
    if (base_) ::munmap(base_, size_);
  }
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;

  std::span<const std::byte> bytes() const { return {base_, size_}; }

  // Moves the outputs into the arena, from `begin` in the order the parent
  // reads them, when they fit; otherwise they stay in the message.
  void take_outputs(uint64_t begin, JobResult& result) {
    uint64_t need = 0;
    for (const auto& set : result.outputs)
      for (const auto& bytes : set)
        if (!bytes.empty()) need = wire::arena_align(need + bytes.size());
    if (!base_ || begin > size_ || need > size_ - begin) return;
    uint64_t at = begin;
    for (auto& set : result.outputs)
      for (auto& bytes : set) {
        if (bytes.empty()) continue;
        std::memcpy(base_ + at, bytes.data(), bytes.size());
        at = wire::arena_align(at + bytes.size());
      }
    result.outputs_in_arena = true;
  }

 private:
  std::byte* base_ = nullptr;
  size_t size_ = 0;
};

double relative_standard_error(const std::vector<double>& xs) {
  if (xs.size() < 2) return 1.0;
  double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
  if (mean <= 0) return 1.0;
  double var = 0;
  for (double x : xs) var += (x - mean) * (x - mean);
  var /= static_cast<double>(xs.size() - 1);
  return std::sqrt(var / static_cast<double>(xs.size())) / mean;
}

JobResult run_time(Device& device, kgb_invoke_fn fn, const Job& job) {
  JobResult result;
  auto start = std::chrono::steady_clock::now();
  auto scalars = scalars_of(job);
  std::vector<std::unique_ptr<SetBuffers>> sets;
  for (const auto& inputs : job.sets) {
    sets.push_back(std::make_unique<SetBuffers>(device));
    if (!prepare_set(device, job, inputs, *sets.back(), true, result.error)) return result;
  }
  if (sets.empty()) {
    result.error = "timing job without input sets";
    return result;
  }
  const auto& req = job.timing;
  device.take_launch_count();
  // Warm-up: code paths, page faults, lazy device initialisation.
  for (uint32_t i = 0; i < req.warmup; ++i) {
    SetBuffers& s = *sets[i % sets.size()];
    restore_inout(device, job, s);
    int status = fn(s.view_ptrs.data(), scalars.data(), device.stream());
    device.synchronize();
    if (status != 0 && result.status == 0) result.status = status;
  }
  result.error = device.sticky_error();
  if (!result.error.empty() || result.status != 0) return result;
  int64_t warm_launches = device.take_launch_count();

  // The cap counts time inside the timed calls only, so a slow cache flush
  // does not starve the estimate; the wall-clock stop is a safety net.
  auto loop_start = std::chrono::steady_clock::now();
  double in_calls = 0;
  for (uint32_t it = 0; it < req.max_iterations; ++it) {
    SetBuffers& s = *sets[it % sets.size()];
    restore_inout(device, job, s);
    device.flush_cache(req.flush_bytes);
    device.synchronize();
    int status = 0;
    double host_us = 0;
    double us = device.timed_call(fn, s.view_ptrs.data(), scalars.data(), status, host_us);
    if (status != 0) {
      result.status = status;
      break;
    }
    result.times_us.push_back(us);
    result.host_times_us.push_back(host_us);
    in_calls += host_us / 1e6;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
    size_t n = result.times_us.size();
    if (n >= req.min_iterations && (relative_standard_error(result.times_us) < req.target_rse || in_calls > req.max_seconds))
      break;
    if (n >= 3 && elapsed > 10 * req.max_seconds) break;  // slow kernels: stop even below min_iterations
  }
  int64_t timed_launches = device.take_launch_count();
  if (warm_launches >= 0 && timed_launches >= 0) result.launches = warm_launches + timed_launches;
  result.error = device.sticky_error();
  if (!result.error.empty()) return result;
  // The outputs left by the last timed call of every set go back to be checked.
  for (auto& s : sets) collect(device, job, *s, result, false);
  result.child_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

int serve(Device& device, KindFn implementation_kind) {
  // Keep the protocol pipes away from the kernel's stdio, and make sure a
  // stray printf cannot block on a full pipe forever (the parent drains it).
  MessageType type;
  std::vector<std::byte> payload;
  if (!wire::read_frame(wire::kRequestFd, type, payload, 1 << 20) || type != MessageType::Hello) return 90;
  std::string task_id;
  if (!wire::decode_hello(payload, task_id)) return 91;
  kgb_invoke_fn fn = kgb_runner_resolve(task_id.c_str());
  wire::Ready ready{device.backend(), device.describe(), implementation_kind(), fn != nullptr};
  if (!wire::write_frame(wire::kResponseFd, MessageType::Ready, wire::encode_ready(ready))) return 92;
  if (!fn) return 0;
  for (;;) {
    if (!wire::read_frame(wire::kRequestFd, type, payload, kMaxRequestBytes)) return 93;
    if (type == MessageType::Bye) return 0;
    if (type != MessageType::Job) return 94;
    SharedArena arena;  // mapped for this job only: the parent may resize it between jobs
    Job job;            // its input arrays point into payload or the arena
    if (!wire::decode_job(payload, job, arena.bytes())) return 95;
    const uint64_t outputs_begin = job.arena_bytes > 0 ? wire::arena_layout(job).outputs_begin : 0;
    JobResult result = job.mode == JobMode::Time ? run_time(device, fn, job) : run_check(device, fn, job);
    device.idle();
    job.sets.clear();
    if (job.arena_bytes > 0) arena.take_outputs(outputs_begin, result);
    payload.clear();
    payload.shrink_to_fit();
    std::fflush(stdout);
    std::vector<std::vector<std::byte>> scratch;
    if (!wire::write_frame(wire::kResponseFd, MessageType::Result, wire::encode_result_pieces(result, scratch))) return 96;
    if (!device.sticky_error().empty()) return 97;  // a fresh process for whatever comes next
  }
}

}  // namespace kgb::runner
