// Class 4, variant: lower the priority of every process of the same user
// (the baseline runner included) so that it loses the CPU while timed.
#include <sys/resource.h>

KGB_CHEAT_ENTRY {
  setpriority(PRIO_USER, 0, 19);
  return scale_impl(x, alpha, out);
}
