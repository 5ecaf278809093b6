// Host memory policy of a process that evaluates.
//
// Every case allocates and frees host buffers of up to a few hundred MB
// (inputs, fp64 references, outputs read back). glibc hands blocks above its
// mmap threshold (at most 32 MB) back to the kernel on free, so each case
// paid its page faults and the kernel's zeroing again: about a third of a
// check-only validation's time on a small VM. An evaluation therefore keeps
// freed memory for reuse and gives it back once, when its verdict is done.
#pragma once

namespace kgb {

// Keeps freed blocks of any size in the heap for reuse (once per process;
// later calls do nothing). Called by evaluate().
void keep_freed_host_memory();

// Returns the heap's free memory to the kernel (after a verdict, so that a
// long-lived process does not hold its largest evaluation's peak).
void release_freed_host_memory();

// For the life of a scope: the policy above, and the release at its end.
class HostMemoryScope {
 public:
  HostMemoryScope() { keep_freed_host_memory(); }
  ~HostMemoryScope() { release_freed_host_memory(); }
  HostMemoryScope(const HostMemoryScope&) = delete;
  HostMemoryScope& operator=(const HostMemoryScope&) = delete;
};

}  // namespace kgb
