#include "kgb/timing_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "kgb/platform.h"

namespace kgb {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// File names keep to [A-Za-z0-9._-]; device lists such as "0,1" or GPU UUIDs
// become "0_1" and the like.
std::string file_safe(std::string s) {
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) c = '_';
  return s.substr(0, 120);
}

}  // namespace

std::string timing_lock_key(const Platform& platform) {
  if (platform.backend == "cpu" || platform.has("cpu_device")) return "cpu";
  std::string devices = env_or("CUDA_VISIBLE_DEVICES", "");
  if (platform.backend == "hip") devices = env_or("HIP_VISIBLE_DEVICES", env_or("ROCR_VISIBLE_DEVICES", devices));
  return "gpu-" + file_safe(devices.empty() ? "all" : devices);
}

std::filesystem::path timing_lock_dir() {
  if (const char* dir = std::getenv("KGB_LOCK_DIR"); dir && *dir) return dir;
  std::error_code ec;
  auto tmp = std::filesystem::temp_directory_path(ec);
  return ec ? std::filesystem::path("/tmp") : tmp;
}

TimingLock::TimingLock(TimingLock&& other) noexcept : fd_(other.fd_), waited_(other.waited_) { other.fd_ = -1; }

TimingLock& TimingLock::operator=(TimingLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    waited_ = other.waited_;
    other.fd_ = -1;
  }
  return *this;
}

TimingLock::~TimingLock() { release(); }

void TimingLock::release() {
  if (fd_ >= 0) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
    fd_ = -1;
  }
}

Result<TimingLock> TimingLock::acquire(const std::filesystem::path& dir, const std::string& key,
                                       double max_wait_seconds) {
  const auto path = dir / ("kgb-timing-" + key + ".lock");
  // Readable and writable by every user of the host: runs of different users
  // time on the same device. O_CLOEXEC: the runners never inherit it.
  const mode_t old_mask = ::umask(0);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  ::umask(old_mask);
  if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // flock needs no write access
  if (fd < 0)
    return make_error("timing-lock.open", "cannot open the timing lock " + path.string() + ": " + std::strerror(errno));
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  // Polled rather than a blocking flock: the wait has a deadline, and a
  // signal-free poll every few milliseconds costs nothing next to a timing.
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return make_error("timing-lock.flock", "cannot lock " + path.string() + ": " + why);
    }
    if (elapsed() >= max_wait_seconds) {
      ::close(fd);
      return make_error("timing-lock.timeout", "another process held the timing lock " + path.string() + " for over " +
                                                   std::to_string(static_cast<int>(max_wait_seconds)) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  TimingLock lock;
  lock.fd_ = fd;
  lock.waited_ = elapsed();
  return lock;
}

}  // namespace kgb
