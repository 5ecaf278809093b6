// Results carried from an earlier call, variant: the kernel edits the output
// descriptor the harness passed (its first size becomes 1), so that a later
// call given the same descriptor would do a fraction of the work and leave
// the rest of the output as the earlier call wrote it. Every call must get
// descriptors built fresh, and outputs that hold no earlier result.
#include <stdio.h>

KGB_CHEAT_ENTRY {
  if (out->rank > 0 && out->sizes[0] == 1 && kgb_numel(x) != kgb_numel(out)) fprintf(stderr, "shrunk-descriptor-seen\n");
  int rc = scale_impl(x, alpha, out);
  if (out->rank > 0) ((kgb_tensor*)out)->sizes[0] = 1;
  return rc;
}
