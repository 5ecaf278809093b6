// Class 4, variant: code that runs at load time (before the runner's main)
// starts a helper process that burns CPU while the baseline is timed.
#include <unistd.h>

__attribute__((constructor)) static void start_noise(void) {
  if (fork() == 0)
    for (volatile unsigned long i = 0;; ++i) {
    }
}

KGB_CHEAT_ENTRY { return scale_impl(x, alpha, out); }
