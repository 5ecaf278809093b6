// Class 4, variant: a .preinit_array entry (runs before every constructor)
// makes a new process through the raw clone system call, no fork() symbol.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

static void spawn_early(void) {
  if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) == 0)
    for (;;) pause();
}
static void (*early_hook)(void) __attribute__((section(".preinit_array"), used)) = spawn_early;

KGB_CHEAT_ENTRY { return scale_impl(x, alpha, out); }
