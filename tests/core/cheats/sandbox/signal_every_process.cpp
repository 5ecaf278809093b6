// Class 4, variant: stop every process the user may signal (the baseline
// runner of the same evaluation shares the uid), then let them go again.
#include <signal.h>

KGB_CHEAT_ENTRY {
  kill(-1, SIGSTOP);
  kill(-1, SIGCONT);
  return scale_impl(x, alpha, out);
}
