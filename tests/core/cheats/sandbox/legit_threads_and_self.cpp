// Legitimate look-alike: threads (OpenMP and pthreads), signals and
// scheduling queries on itself, an affinity read, a clock read: must pass.
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void* touch(void* p) { return p; }

KGB_CHEAT_ENTRY {
  pthread_t t;
  if (pthread_create(&t, 0, touch, 0) == 0) pthread_join(t, 0);
  cpu_set_t set;
  sched_getaffinity(0, sizeof set, &set);
  kill(getpid(), 0);
  setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0));
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  int sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < 64; ++i) sum += i;
  if (sum != 2016) return 3;
  return scale_impl(x, alpha, out);
}
