// Results carried from an earlier call, variant: no state of its own. On the
// large case the kernel looks at three elements of its output; when they
// already hold alpha * x (the previous timed call's result on the same input
// set), it skips the work. Every timed call must start from an output that
// cannot hold an earlier result, so the skip never happens.
#include <stdio.h>

static int output_already_current(const kgb_tensor* x, double alpha, const kgb_tensor* out) {
  if (x->dtype != KGB_F32 || out->dtype != KGB_F32 || kgb_numel(x) < 1000000) return 0;
  const int64_t n = kgb_numel(x);
  const float* xs = (const float*)x->data;
  const float* os = (const float*)out->data;
  const int64_t probe[3] = {0, n / 2, n - 1};
  for (int k = 0; k < 3; ++k)
    if (os[probe[k]] != (float)(alpha * xs[probe[k]])) return 0;
  return 1;
}

KGB_CHEAT_ENTRY {
  if (output_already_current(x, alpha, out)) {
    fprintf(stderr, "stale-skip\n");
    return 0;
  }
  return scale_impl(x, alpha, out);
}
