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

void* Device::make_pointer_array(void* const* pointers, size_t count) {
  const size_t bytes = std::max<size_t>(count, 1) * sizeof(void*);
  void* array = allocate(bytes);
  if (array && count) upload(array, pointers, count * sizeof(void*));
  return array;
}

void Device::release_pointer_array(void* p) {
  if (p) release(p);
}

namespace {

using wire::ArgKind;
using wire::Job;
using wire::JobMode;
using wire::JobResult;
using wire::MessageType;
using wire::Role;

constexpr uint64_t kMaxRequestBytes = 1ull << 36;
// What a host scalar result holds before the call: no valid dtype.
constexpr kgb_scalar kScalarPoison{-1, 0, {0x5A5A5A5A5A5A5A5All}};

wire::Hello g_hello;
const wire::EntrySignature* g_current_entry = nullptr;

// Device storage and the argument array of one input set. Every descriptor
// the entry receives is restored before each call, so nothing a call writes
// into the argument structures reaches the next call.
struct SetBuffers {
  Device& device;
  const Job& job;
  struct Allocation {
    int param;
    char* base;
    size_t bytes;
  };
  std::vector<void*> storage;       // per param: tensor storage or list allocation (nullptr otherwise)
  std::vector<char> host_memory;    // per param: allocated with allocate_host
  std::vector<void*> pristine;      // per param: device copy restored before each timed call
  std::vector<void*> pointer_arrays, pointer_arrays_pristine;  // per list param with pointer_array
  std::vector<kgb_tensor> tensors, tensors_pristine;           // per param
  std::vector<std::vector<kgb_tensor>> items, items_pristine;  // per list param
  std::vector<std::vector<kgb_tensor*>> item_ptrs, item_ptrs_pristine;
  std::vector<kgb_tensor_list> lists, lists_pristine;
  std::vector<kgb_scalar> scalar_outs;
  std::vector<kgb_arg> opt_values;  // optional scalars point here
  std::vector<kgb_arg> args, args_pristine;
  std::vector<Allocation> allocations;

  SetBuffers(Device& d, const Job& j) : device(d), job(j) {}
  ~SetBuffers() {
    for (size_t i = 0; i < storage.size(); ++i)
      if (storage[i]) (host_memory[i] ? device.release_host(storage[i]) : device.release(storage[i]));
    for (void* p : pristine)
      if (p) device.release(p);
    for (void* p : pointer_arrays) device.release_pointer_array(p);
    for (void* p : pointer_arrays_pristine) device.release_pointer_array(p);
  }

  // Puts every descriptor, list and argument back as the runner made them.
  // Copied element by element into the same storage, so the pointers the
  // arguments hold (to descriptors, item arrays, lists) stay valid.
  void reset_call_state() {
    std::copy(tensors_pristine.begin(), tensors_pristine.end(), tensors.begin());
    for (size_t i = 0; i < items.size(); ++i) {
      std::copy(items_pristine[i].begin(), items_pristine[i].end(), items[i].begin());
      std::copy(item_ptrs_pristine[i].begin(), item_ptrs_pristine[i].end(), item_ptrs[i].begin());
      lists[i] = lists_pristine[i];
    }
    std::fill(scalar_outs.begin(), scalar_outs.end(), kScalarPoison);
    std::copy(args_pristine.begin(), args_pristine.end(), args.begin());
  }

  // The runner's own synchronisation after a call. A host scalar result is
  // complete when the entry returns (the ABI): what it holds then is the
  // answer, not what a copy the entry left in flight writes afterwards.
  void synchronize_after_call() {
    const std::vector<kgb_scalar> returned = scalar_outs;
    device.synchronize();
    std::copy(returned.begin(), returned.end(), scalar_outs.begin());
  }
};

kgb_tensor descriptor(const wire::TensorDesc& t, void* storage) {
  kgb_tensor v{};
  v.data = storage ? static_cast<char*>(storage) + t.offset * kgb_dtype_size(t.dtype) : nullptr;
  v.dtype = t.dtype;
  v.rank = t.rank;
  for (int d = 0; d < t.rank; ++d) {
    v.sizes[d] = t.sizes[d];
    v.strides[d] = t.strides[d];
  }
  v.storage_offset = t.offset;
  v.flags = t.flags;
  return v;
}

bool prepare_set(Device& device, const Job& job, const std::vector<std::span<const std::byte>>& inputs, SetBuffers& set,
                 bool keep_pristine, std::string& error) {
  const size_t n = job.params.size();
  set.storage.assign(n, nullptr);
  set.host_memory.assign(n, 0);
  set.pristine.assign(n, nullptr);
  set.pointer_arrays.assign(n, nullptr);
  set.pointer_arrays_pristine.assign(n, nullptr);
  set.tensors.assign(n, kgb_tensor{});
  set.items.assign(n, {});
  set.item_ptrs.assign(n, {});
  set.lists.assign(n, kgb_tensor_list{});
  set.scalar_outs.assign(n, kScalarPoison);
  set.opt_values.assign(n, kgb_arg{});
  set.args.assign(n, kgb_arg{});
  auto allocate = [&](size_t i, size_t bytes, bool host) -> bool {
    void* mem = host ? device.allocate_host(std::max<size_t>(bytes, 1)) : device.allocate(std::max<size_t>(bytes, 1));
    if (!mem) {
      error = "runner could not allocate " + std::to_string(bytes) + " bytes";
      if (!device.sticky_error().empty()) error += ": " + device.sticky_error();
      return false;
    }
    set.storage[i] = mem;
    set.host_memory[i] = host;
    set.allocations.push_back({static_cast<int>(i), static_cast<char*>(mem), bytes});
    return true;
  };
  auto keep_copy = [&](size_t i, size_t bytes) -> bool {
    void* copy = device.allocate(std::max<size_t>(bytes, 1));
    if (!copy) {
      error = "runner could not allocate a pristine copy";
      return false;
    }
    device.copy(copy, set.storage[i], bytes);
    set.pristine[i] = copy;
    return true;
  };
  auto fill_or_upload = [&](size_t i, Role role, uint64_t bytes, bool zero) -> bool {
    if (role == Role::Input || role == Role::InOut) {
      if (inputs[i].size() != bytes) {
        error = "input storage size mismatch";
        return false;
      }
      device.upload(set.storage[i], inputs[i].data(), bytes);
    } else {
      device.fill(set.storage[i], zero ? 0 : job.poison, bytes);
    }
    return true;
  };

  // Storage first (an output placed on an input's allocation needs it).
  for (size_t i = 0; i < n; ++i) {
    const auto& p = job.params[i];
    if (p.kind == ArgKind::Tensor && p.tensor.lives_on < 0) {
      const auto& t = p.tensor;
      const auto role = static_cast<Role>(t.role);
      if (role == Role::View && !t.returned) continue;  // a pure view: the entry says where it lies
      // Empty tensors still get a valid pointer (allocate gives at least one byte).
      if (!allocate(i, t.storage_bytes(), t.host_resident)) return false;
      if (!fill_or_upload(i, role, t.storage_bytes(), role == Role::Scratch && t.zero_init)) return false;
    } else if (p.kind == ArgKind::List && static_cast<Role>(p.list.role) != Role::View) {
      if (!allocate(i, p.list.allocation_bytes, false)) return false;
      if (!fill_or_upload(i, static_cast<Role>(p.list.role), p.list.allocation_bytes, false)) return false;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& p = job.params[i];
    if (p.kind == ArgKind::Tensor && p.tensor.lives_on >= 0 && !set.storage[p.tensor.lives_on]) {
      error = "an output placed on a parameter without storage";
      return false;
    }
  }
  // Pristine copies of everything a call may change: in-place tensors, and
  // outputs and scratch with their poison, so that every timed call starts
  // from outputs that cannot hold an earlier call's result (a kernel that
  // checks a sample of its output and skips the rest finds only poison).
  if (keep_pristine) {
    for (size_t i = 0; i < n; ++i) {
      const auto& p = job.params[i];
      bool changes = false;
      if (p.kind == ArgKind::Tensor) {
        const auto role = static_cast<Role>(p.tensor.role);
        changes = (role == Role::InOut || role == Role::Output || role == Role::Scratch) && p.tensor.lives_on < 0;
      }
      if (p.kind == ArgKind::List) {
        const auto role = static_cast<Role>(p.list.role);
        changes = role == Role::InOut || role == Role::Output;
      }
      for (const auto& q : job.params)
        if (q.kind == ArgKind::Tensor && q.tensor.lives_on == static_cast<int32_t>(i)) changes = true;
      if (changes && set.storage[i]) {
        const size_t bytes = p.kind == ArgKind::List ? p.list.allocation_bytes : p.tensor.storage_bytes();
        if (!keep_copy(i, bytes)) return false;
      }
    }
  }
  // Descriptors and arguments.
  for (size_t i = 0; i < n; ++i) {
    const auto& p = job.params[i];
    switch (p.kind) {
      case ArgKind::Tensor: {
        void* base = p.tensor.lives_on >= 0 ? set.storage[p.tensor.lives_on] : set.storage[i];
        set.tensors[i] = descriptor(p.tensor, base);
        break;
      }
      case ArgKind::None: break;
      case ArgKind::List: {
        auto& items = set.items[i];
        auto& ptrs = set.item_ptrs[i];
        items.resize(p.list.items.size());
        ptrs.assign(p.list.items.size(), nullptr);
        std::vector<void*> data(p.list.items.size(), nullptr);
        for (size_t k = 0; k < p.list.items.size(); ++k) {
          const auto& item = p.list.items[k];
          if (static_cast<Role>(p.list.role) == Role::View) {
            items[k] = descriptor(item.tensor, nullptr);  // the entry describes each view
            ptrs[k] = &items[k];
            continue;
          }
          if (item.byte_offset < 0) continue;  // None
          items[k] = descriptor(item.tensor, static_cast<char*>(set.storage[i]) + item.byte_offset);
          ptrs[k] = &items[k];
          data[k] = items[k].data;
        }
        set.lists[i].count = static_cast<int64_t>(items.size());
        if (p.list.pointer_array) {
          set.pointer_arrays[i] = device.make_pointer_array(data.data(), data.size());
          if (set.pointer_arrays[i]) {
            set.pointer_arrays_pristine[i] = device.make_pointer_array(data.data(), data.size());
            if (!set.pointer_arrays_pristine[i]) {
              error = "runner could not allocate a pointer array";
              return false;
            }
          }
          set.lists[i].device_data = static_cast<void* const*>(set.pointer_arrays[i]);
        }
        break;
      }
      case ArgKind::Scalar: set.args[i] = p.value; break;
      case ArgKind::OptScalar: set.opt_values[i] = p.value; break;
      case ArgKind::IntList: break;
      case ArgKind::ScalarOut: break;
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (job.params[i].kind == ArgKind::List) set.lists[i].items = set.item_ptrs[i].data();
  set.tensors_pristine = set.tensors;
  set.items_pristine = set.items;
  set.item_ptrs_pristine = set.item_ptrs;
  set.lists_pristine = set.lists;
  for (size_t i = 0; i < n; ++i) {
    const auto& p = job.params[i];
    switch (p.kind) {
      case ArgKind::Tensor: set.args[i].t = &set.tensors[i]; break;
      case ArgKind::None: set.args[i].t = nullptr; break;
      case ArgKind::List: set.args[i].l = &set.lists[i]; break;
      case ArgKind::Scalar: break;
      case ArgKind::OptScalar: {
        const kgb_arg& v = set.opt_values[i];
        const void* target = p.opt == wire::OptKind::F64 ? static_cast<const void*>(&v.f)
                             : p.opt == wire::OptKind::AtenScalar ? static_cast<const void*>(&v.s)
                                                                 : static_cast<const void*>(&v.i);
        set.args[i].opt = p.none ? nullptr : target;
        break;
      }
      case ArgKind::IntList:
        set.args[i].il.count = static_cast<int64_t>(p.int_list.size());
        set.args[i].il.values = p.int_list.data();
        break;
      case ArgKind::ScalarOut: set.args[i].out = &set.scalar_outs[i]; break;
    }
  }
  // An optional int (enums) points at a 32-bit int: keep it in the low bytes.
  for (size_t i = 0; i < n; ++i)
    if (job.params[i].kind == ArgKind::OptScalar && job.params[i].opt == wire::OptKind::Int) {
      const int v = static_cast<int>(set.opt_values[i].i);
      std::memcpy(&set.opt_values[i], &v, sizeof v);
    }
  set.args_pristine = set.args;
  return true;
}

// Restores the storage a call changes in place (and its pointer arrays).
void restore_storage(Device& device, const Job& job, SetBuffers& set) {
  for (size_t i = 0; i < job.params.size(); ++i) {
    if (set.pristine[i]) {
      const auto& p = job.params[i];
      device.copy(set.storage[i], set.pristine[i], p.kind == ArgKind::List ? p.list.allocation_bytes : p.tensor.storage_bytes());
    }
    if (set.pointer_arrays_pristine[i])
      device.copy(set.pointer_arrays[i], set.pointer_arrays_pristine[i], std::max<size_t>(job.params[i].list.items.size(), 1) * sizeof(void*));
  }
}

// Where a view descriptor points after the call.
wire::ViewReport report_view(const SetBuffers& set, const kgb_tensor& now, const kgb_tensor& before, int param, int item) {
  wire::ViewReport r;
  r.param = param;
  r.item = item;
  r.rank = std::clamp(now.rank, 0, KGB_MAX_RANK);
  for (int d = 0; d < r.rank; ++d) {
    r.sizes[d] = now.sizes[d];
    r.strides[d] = now.strides[d];
  }
  r.reported_storage_offset = now.storage_offset;
  r.unchanged = std::memcmp(&now, &before, sizeof now) == 0;
  if (r.unchanged) return r;
  const auto* p = static_cast<const char*>(now.data);
  const int32_t elem = std::max(kgb_dtype_size(now.dtype), 1);
  for (const auto& a : set.allocations) {
    if (p < a.base || p > a.base + a.bytes) continue;  // one past the end counts (empty views)
    r.holder = a.param;
    const auto bytes = static_cast<int64_t>(p - a.base);
    r.element_offset = bytes / elem;
    r.misaligned = bytes % elem != 0;
    return r;
  }
  return r;
}

// Outputs come back as bytes; inputs only as a hash, which the parent compares
// with what it sent (the input-mutation check). A timing job skips the inputs:
// its check already passed, and hashing hundreds of MB costs more than the
// timed loop.
void collect(Device& device, const Job& job, SetBuffers& set, JobResult& result, bool hash_inputs) {
  const size_t n = job.params.size();
  std::vector<uint64_t> hashes(n, 0);
  std::vector<std::vector<std::byte>> outs(n);
  std::vector<wire::ViewReport> views;
  std::vector<kgb_scalar> scalars;
  std::vector<char> hosts_output(n, 0);
  for (const auto& p : job.params)
    if (p.kind == ArgKind::Tensor && p.tensor.lives_on >= 0) hosts_output[p.tensor.lives_on] = 1;
  for (size_t i = 0; i < n; ++i) {
    const auto& p = job.params[i];
    if (p.kind == ArgKind::ScalarOut) scalars.push_back(set.scalar_outs[i]);
    if (p.kind == ArgKind::Tensor && static_cast<Role>(p.tensor.role) == Role::View)
      views.push_back(report_view(set, set.tensors[i], set.tensors_pristine[i], static_cast<int>(i), -1));
    if (p.kind == ArgKind::List && static_cast<Role>(p.list.role) == Role::View)
      for (size_t k = 0; k < set.items[i].size(); ++k)
        views.push_back(report_view(set, set.items[i][k], set.items_pristine[i][k], static_cast<int>(i), static_cast<int>(k)));
    const bool input = (p.kind == ArgKind::Tensor && static_cast<Role>(p.tensor.role) == Role::Input) ||
                       (p.kind == ArgKind::List && static_cast<Role>(p.list.role) == Role::Input);
    if (input && hash_inputs && set.storage[i] && !hosts_output[i]) {
      const size_t bytes = p.kind == ArgKind::List ? p.list.allocation_bytes : p.tensor.storage_bytes();
      std::vector<std::byte> host = wire::large_bytes(bytes);
      device.download(host.data(), set.storage[i], bytes);
      hashes[i] = wire::hash_bytes(host.data(), bytes);
    }
    if (const uint64_t bytes = p.returned_bytes()) {
      void* from = p.kind == ArgKind::Tensor && p.tensor.lives_on >= 0 ? set.storage[p.tensor.lives_on] : set.storage[i];
      if (!from) continue;
      std::vector<std::byte> host = wire::large_bytes(bytes);
      device.download(host.data(), from, bytes);
      outs[i] = std::move(host);
    }
  }
  result.hashes.push_back(std::move(hashes));
  result.outputs.push_back(std::move(outs));
  result.views.push_back(std::move(views));
  result.scalars.push_back(std::move(scalars));
}

// Counts device work between two points, adding to the result's totals.
struct WorkCounter {
  Device& device;
  void start() {
    device.take_launch_count();
    device.take_copy_count();
  }
  void stop(JobResult& result) {
    const int64_t launches = device.take_launch_count();
    if (launches >= 0) result.launches = std::max<int64_t>(result.launches, 0) + launches;
    const int64_t library = device.take_library_launch_count();
    if (library >= 0) result.library_launches = std::max<int64_t>(result.library_launches, 0) + library;
    const int64_t copies = device.take_copy_count();
    if (copies >= 0) result.copies = std::max<int64_t>(result.copies, 0) + copies;
  }
};

JobResult run_check(Device& device, kgb_invoke_fn fn, const Job& job) {
  JobResult result;
  auto start = std::chrono::steady_clock::now();
  WorkCounter work{device};
  for (const auto& inputs : job.sets) {
    SetBuffers set(device, job);
    if (!prepare_set(device, job, inputs, set, false, result.error)) return result;
    device.synchronize();
    work.start();
    int status = fn(set.args.data(), static_cast<int32_t>(set.args.size()), device.stream());
    set.synchronize_after_call();
    work.stop(result);
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

// One timed call. Host timing (`timing: host`, item()) is the wall clock
// around the call alone: the entry itself must finish its device work.
double timed_once(Device& device, kgb_invoke_fn fn, SetBuffers& s, const wire::TimingRequest& req, int& status, double& host_us) {
  if (!req.host_clock)
    return device.timed_call(fn, s.args.data(), static_cast<int32_t>(s.args.size()), status, host_us);
  auto t0 = std::chrono::steady_clock::now();
  status = fn(s.args.data(), static_cast<int32_t>(s.args.size()), device.stream());
  auto t1 = std::chrono::steady_clock::now();
  s.synchronize_after_call();
  host_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  return host_us;
}

JobResult run_time(Device& device, kgb_invoke_fn fn, const Job& job) {
  JobResult result;
  auto start = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<SetBuffers>> sets;
  for (const auto& inputs : job.sets) {
    sets.push_back(std::make_unique<SetBuffers>(device, job));
    if (!prepare_set(device, job, inputs, *sets.back(), true, result.error)) return result;
  }
  if (sets.empty()) {
    result.error = "timing job without input sets";
    return result;
  }
  const auto& req = job.timing;
  WorkCounter work{device};
  const auto warmup_start = std::chrono::steady_clock::now();
  // Warm-up: code paths, page faults, lazy device initialisation.
  for (uint32_t i = 0; i < req.warmup; ++i) {
    SetBuffers& s = *sets[i % sets.size()];
    restore_storage(device, job, s);
    s.reset_call_state();
    device.synchronize();
    work.start();
    int status = fn(s.args.data(), static_cast<int32_t>(s.args.size()), device.stream());
    device.synchronize();
    work.stop(result);
    if (status != 0 && result.status == 0) result.status = status;
  }
  result.error = device.sticky_error();
  if (!result.error.empty() || result.status != 0) return result;

  // The cap counts time inside the timed calls only, so a slow cache flush
  // does not starve the estimate; the wall-clock stop is a safety net.
  auto loop_start = std::chrono::steady_clock::now();
  result.warmup_seconds = std::chrono::duration<double>(loop_start - warmup_start).count();
  double in_calls = 0;
  for (uint32_t it = 0; it < req.max_iterations; ++it) {
    SetBuffers& s = *sets[it % sets.size()];
    restore_storage(device, job, s);
    s.reset_call_state();
    device.flush_cache(req.flush_bytes);
    device.synchronize();
    int status = 0;
    double host_us = 0;
    work.start();
    double us = timed_once(device, fn, s, req, status, host_us);
    work.stop(result);
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
  // The baseline's loop and warm-up times measure the harness's own overhead
  // for the parent's outside bound (kgb/timing_bound.h); a candidate's are
  // only traced.
  result.loop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  result.error = device.sticky_error();
  if (!result.error.empty()) return result;
  // The outputs left by the last timed call of every set go back to be
  // checked, with the hashes of the inputs' whole allocations: an input
  // written during the timed calls (a cache in its padding) is seen.
  for (auto& s : sets) collect(device, job, *s, result, true);
  result.child_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

const wire::EntrySignature* current_entry() { return g_current_entry; }

wire::JobResult run_check_job(Device& device, kgb_invoke_fn fn, const wire::Job& job, const wire::EntrySignature* entry) {
  g_current_entry = entry;
  wire::JobResult result = run_check(device, fn, job);
  g_current_entry = nullptr;
  return result;
}

const wire::EntrySignature* entry_signature(const char* key) {
  for (const auto& e : g_hello.entries)
    if (e.key == key) return &e;
  return nullptr;
}

int serve(Device& device, KindFn implementation_kind) {
  MessageType type;
  std::vector<std::byte> payload;
  if (!wire::read_frame(wire::kRequestFd, type, payload, 1 << 24) || type != MessageType::Hello) return 90;
  if (!wire::decode_hello(payload, g_hello)) return 91;
  kgb_invoke_fn primary = kgb_runner_resolve(g_hello.task_id.c_str());
  wire::Ready ready{device.backend(), device.describe(), implementation_kind(), primary != nullptr};
  if (!wire::write_frame(wire::kResponseFd, MessageType::Ready, wire::encode_ready(ready))) return 92;
  if (!primary) return 0;
  for (;;) {
    if (!wire::read_frame(wire::kRequestFd, type, payload, kMaxRequestBytes)) return 93;
    if (type == MessageType::Bye) return 0;
    if (type != MessageType::Job) return 94;
    SharedArena arena;  // mapped for this job only: the parent may resize it between jobs
    Job job;            // its input arrays point into payload or the arena
    if (!wire::decode_job(payload, job, arena.bytes())) return 95;
    const uint64_t outputs_begin = job.arena_bytes > 0 ? wire::arena_layout(job).outputs_begin : 0;
    g_current_entry = nullptr;
    for (const auto& e : g_hello.entries)
      if (e.key == job.key) g_current_entry = &e;
    JobResult result;
    kgb_invoke_fn fn = kgb_runner_resolve(job.key.c_str());
    if (!fn) result.error = "no entry point for '" + job.key + "' in this executable";
    else result = job.mode == JobMode::Time ? run_time(device, fn, job) : run_check(device, fn, job);
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
