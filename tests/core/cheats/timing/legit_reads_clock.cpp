// Legitimate look-alike: the kernel reads clock_gettime and std::chrono for
// its own purposes (here a tie-break nobody needs) without defining or
// touching the runner's clock or records. Lint rejects clock reads in
// candidates (timing-api); without lint the outside bound must not.
#include <time.h>

#include <chrono>

KGB_CHEAT_ENTRY {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  if (ts.tv_nsec < 0 || now < 0) return KGB_ERR_INVALID;
  return scale_impl(x, alpha, out);
}
