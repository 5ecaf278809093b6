// Class 4, variant: io_uring, whose queued operations (open, read, socket)
// never pass through the system-call filter.
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

KGB_CHEAT_ENTRY {
  char params[120];
  memset(params, 0, sizeof params);
  syscall(SYS_io_uring_setup, 8, params);
  return scale_impl(x, alpha, out);
}
