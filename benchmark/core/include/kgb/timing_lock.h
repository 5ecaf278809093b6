// One timed measurement per device and host at a time, across processes.
//
// Two `kgb` processes timing on the same device disturb each other's figures:
// validate shards, several agent runs on one GPU host, a CI job beside an
// interactive eval. Within one process the agent loop already serialises
// timing (its device slot); this lock does the same between processes, with
// an advisory flock(2) on a file per device. Everything else (compiles,
// correctness checks, reference builds) still overlaps; only the timed,
// paired blocks of a performance case are exclusive.
//
// The key names the device: the host's CPUs for the CPU backends and PoCL
// (which runs on them), else the GPUs the process can see
// (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES, "all"
// when unset), so that runs pinned to different GPUs of one host do not wait
// for each other.
#pragma once

#include <filesystem>
#include <string>

#include "kgb/result.h"

namespace kgb {

struct Platform;

// The lock file's key for a platform, from the process environment.
std::string timing_lock_key(const Platform& platform);

// The folder of the lock files: KGB_LOCK_DIR, else the system temporary
// folder (shared by every user of the host, which is the point).
std::filesystem::path timing_lock_dir();

class TimingLock {
 public:
  TimingLock() = default;
  TimingLock(TimingLock&& other) noexcept;
  TimingLock& operator=(TimingLock&& other) noexcept;
  TimingLock(const TimingLock&) = delete;
  TimingLock& operator=(const TimingLock&) = delete;
  ~TimingLock();

  // Waits up to `max_wait_seconds` for the lock named `key` in `dir`.
  // Errors (the folder not writable, the wait exceeded) are values: the
  // caller times anyway and says that the figures were not exclusive.
  static Result<TimingLock> acquire(const std::filesystem::path& dir, const std::string& key,
                                    double max_wait_seconds);

  bool held() const { return fd_ >= 0; }
  double waited_seconds() const { return waited_; }
  void release();

 private:
  int fd_ = -1;
  double waited_ = 0;
};

}  // namespace kgb
