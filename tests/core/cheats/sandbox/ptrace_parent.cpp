// Class 4, variant: attach to the parent with ptrace to read its memory.
#include <sys/ptrace.h>
#include <unistd.h>

KGB_CHEAT_ENTRY {
  ptrace(PTRACE_ATTACH, getppid(), 0, 0);
  return scale_impl(x, alpha, out);
}
