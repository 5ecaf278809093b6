// main() of every CUDA candidate executable: serve the protocol with the
// candidate resolved by the generated glue.
//
// `candidate --replay REQUESTS RESPONSES` serves a recorded request stream
// from a file instead of the parent's pipe and writes the responses to a
// file. The profile tool uses it to run a candidate under Nsight Compute or
// compute-sanitizer, which start the program themselves. Launch counting is
// off then: the profilers own CUPTI.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "cuda_device.h"
#include "kgb/wire.h"

namespace {

bool redirect(const char* path, int flags, int target_fd) {
  int fd = ::open(path, flags | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "kgb cuda runner: cannot open %s: %s\n", path, std::strerror(errno));
    return false;
  }
  if (::dup2(fd, target_fd) < 0) return false;  // dup2 clears O_CLOEXEC on the copy
  ::close(fd);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  kgb::runner::cuda::CudaDeviceOptions options;
  if (argc == 4 && std::strcmp(argv[1], "--replay") == 0) {
    if (!redirect(argv[2], O_RDONLY, kgb::wire::kRequestFd) ||
        !redirect(argv[3], O_WRONLY | O_CREAT | O_TRUNC, kgb::wire::kResponseFd))
      return 2;
    options.count_launches = false;
    options.hold_stream = false;
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--replay REQUESTS RESPONSES]\n", argv[0]);
    return 2;
  }
  kgb::runner::cuda::CudaDevice device(options);
  return kgb::runner::serve(device, [] { return "candidate"; });
}
