#include "kgb/host_memory.h"

#include <malloc.h>

#include <mutex>

namespace kgb {

void keep_freed_host_memory() {
  static std::once_flag once;
  std::call_once(once, [] {
    // 1 GiB: larger blocks are rare (a few perf-size references) and may go
    // back to the kernel as before. The trim threshold keeps free memory at
    // the heap's top instead of returning it after every free.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

void release_freed_host_memory() { malloc_trim(0); }

}  // namespace kgb
