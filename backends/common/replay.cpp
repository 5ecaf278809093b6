#include "kgb_runner_replay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "kgb/wire.h"

namespace kgb::runner {
namespace {

bool redirect(const char* runner_name, const char* path, int flags, int target_fd) {
  int fd = ::open(path, flags | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "%s: cannot open %s: %s\n", runner_name, path, std::strerror(errno));
    return false;
  }
  if (fd == target_fd) return ::fcntl(fd, F_SETFD, 0) == 0;  // already in place: keep it open across exec
  const bool ok = ::dup2(fd, target_fd) >= 0;  // dup2 clears O_CLOEXEC on the copy
  ::close(fd);
  return ok;
}

}  // namespace

LaunchMode launch_mode(int argc, char** argv, const char* runner_name) {
  if (argc == 1) return LaunchMode::Serve;
  if (argc == 4 && std::strcmp(argv[1], "--replay") == 0) {
    if (!redirect(runner_name, argv[2], O_RDONLY, wire::kRequestFd) ||
        !redirect(runner_name, argv[3], O_WRONLY | O_CREAT | O_TRUNC, wire::kResponseFd))
      return LaunchMode::Error;
    return LaunchMode::Replay;
  }
  std::fprintf(stderr, "usage: %s [--replay REQUESTS RESPONSES]\n", argc > 0 ? argv[0] : runner_name);
  return LaunchMode::Error;
}

}  // namespace kgb::runner
